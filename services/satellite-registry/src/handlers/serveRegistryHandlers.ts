import type { Bus } from '@orbital/bus';
import { registrySubjects } from '@orbital/contracts';
import type { createCommandQueue } from '../domain/commandQueue.ts';
import type { createConfigurationDistribution } from '../domain/distributeConfiguration.ts';
import type { createRegistration } from '../domain/registerSatellite.ts';
import type { createSatelliteOperations } from '../domain/satelliteOperations.ts';
import type { createTokenOperations } from '../domain/tokenOperations.ts';

export type RegistryOperations = {
  tokens: ReturnType<typeof createTokenOperations>;
  register: ReturnType<typeof createRegistration>;
  commands: ReturnType<typeof createCommandQueue>;
  satellites: ReturnType<typeof createSatelliteOperations>;
  configurationFor: ReturnType<typeof createConfigurationDistribution>;
};

/** One thin handler per subject; each operation checks the caller's identity itself. */
export function serveRegistryHandlers(bus: Bus, ops: RegistryOperations): void {
  const s = registrySubjects;
  bus.serve(s.createToken, (req, ctx) => ops.tokens.createToken(req, ctx.identity));
  bus.serve(s.listTokens, (req, ctx) => ops.tokens.listTokens(req, ctx.identity));
  bus.serve(s.revokeToken, (req, ctx) => ops.tokens.revokeToken(req, ctx.identity));
  bus.serve(s.register, (req) => ops.register(req));
  bus.serve(s.lookupApiKey, (req, ctx) => ops.satellites.lookupApiKey(req, ctx.identity));
  bus.serve(s.heartbeat, (req, ctx) => ops.satellites.heartbeat(req, ctx.identity));
  bus.serve(s.pollCommands, (req, ctx) => ops.commands.poll(req, ctx.identity));
  bus.serve(s.reportResult, (req, ctx) => ops.commands.report(req, ctx.identity));
  bus.serve(s.createCommand, (req, ctx) => ops.commands.create(req, ctx.identity));
  bus.serve(s.getCommand, (req, ctx) => ops.commands.get(req, ctx.identity));
  bus.serve(s.getConfiguration, (req, ctx) => ops.configurationFor(req, ctx.identity, ctx.requestId));
  bus.serve(s.listSatellites, (req, ctx) => ops.satellites.list(req, ctx.identity));
  bus.serve(s.getSatellite, (req, ctx) => ops.satellites.get(req, ctx.identity));
  bus.serve(s.getMetrics, (req, ctx) => ops.satellites.metrics(req, ctx.identity));
  bus.serve(s.revokeSatellite, (req, ctx) => ops.satellites.revoke(req, ctx.identity));
  bus.serve(s.updateAllowlist, (req, ctx) => ops.satellites.updateAllowlist(req, ctx.identity));
}
