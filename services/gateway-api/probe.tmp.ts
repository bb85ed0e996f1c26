import { createBus } from '@orbital/bus';
import { createLogger } from '@orbital/logger';
import { createReadiness } from '@orbital/service';
import { buildGateway } from './src/app.ts';

const logger = createLogger({ name: 'probe', level: 'silent' });
const bus = await createBus({ servers: 'nats://127.0.0.1:4222', name: 'probe', prefix: 'probe_lim', logger });
const app = await buildGateway({ bus, logger, readiness: createReadiness(), bodyLimitBytes: 1024 });
await app.listen({ port: 3999, host: '127.0.0.1' });
console.log('listening');
