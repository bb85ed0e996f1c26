/**
 * The reference the command poll is measured against: the least an HTTP -> NATS -> PostgreSQL round trip
 * costs on this machine. `ROLE=http` is a Fastify server whose one route sends a NATS request; `ROLE=db`
 * answers it with a primary-key read of one satellite row through a slonik pool, as the registry does.
 * Two processes, as gateway-api and the registry are. Started by bench/registry.ts.
 */
import { connect } from '@nats-io/transport-node';
import { createDatabasePool, sql } from '@orbital/db';
import Fastify from 'fastify';

const subject = `${process.env.NATS_SUBJECT_PREFIX ?? 'bench'}.ceiling.satellite.get`;
const nats = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', noAsyncTraces: true });

if (process.env.ROLE === 'db') {
  const pool = await createDatabasePool({
    host: process.env.POSTGRES_HOST ?? '127.0.0.1',
    port: Number(process.env.POSTGRES_PORT ?? 5432),
    database: process.env.POSTGRES_DATABASE ?? 'postgres',
    user: process.env.POSTGRES_USER ?? 'postgres',
    ssl: false,
  });
  nats.subscribe(subject, {
    queue: 'ceiling',
    callback: (_error, msg) => {
      const { id } = msg.json<{ id: string }>();
      void pool
        .maybeOne(sql.unsafe`SELECT id, status, satellite_type, team_id FROM registry.satellites WHERE id = ${id}`)
        .then(
          (row) => msg.respond(JSON.stringify({ ok: true, data: row })),
          () => msg.respond(JSON.stringify({ ok: false })),
        );
    },
  });
  await nats.flush();
} else {
  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>('/satellites/:id', async (request) => {
    const reply = await nats.request(subject, JSON.stringify({ id: request.params.id }), { timeout: 5000 });
    return reply.json();
  });
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
}
console.log('{"msg":"ready"}');
