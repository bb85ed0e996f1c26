import { auditContextOf } from '@orbital/audit';
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

/**
 * One thin handler per subject. Who may call each one is declared with the subject and enforced by
 * bus.serve; an operation narrows its answer with the caller's grant (its teams, its user id).
 */
export function serveRegistryHandlers(bus: Bus, ops: RegistryOperations): void {
  const s = registrySubjects;
  bus.serve(s.createToken, (req, ctx) => ops.tokens.createToken(req, ctx.access, auditContextOf(ctx)));
  bus.serve(s.listTokens, (req) => ops.tokens.listTokens(req));
  bus.serve(s.revokeToken, (req, ctx) => ops.tokens.revokeToken(req, ctx.access, auditContextOf(ctx)));
  bus.serve(s.register, (req, ctx) => ops.register(req, ctx.requestId));
  bus.serve(s.lookupApiKey, (req) => ops.satellites.lookupApiKey(req));
  bus.serve(s.rememberApiKeyDigest, (req) => ops.satellites.rememberApiKeyDigest(req));
  // Asked for only by a satellite's first heartbeat (its activation), the one that is recorded.
  bus.serve(s.heartbeat, (req, ctx) => ops.satellites.heartbeat(req, () => auditContextOf(ctx)));
  bus.serve(s.pollCommands, (req, ctx) => ops.commands.poll(req, ctx.access));
  bus.serve(s.reportResult, (req) => ops.commands.report(req));
  bus.serve(s.createCommand, (req) => ops.commands.create(req));
  bus.serve(s.getCommand, (req) => ops.commands.get(req));
  bus.serve(s.getConfiguration, (req, ctx) => ops.configurationFor(req, ctx.access, ctx.requestId));
  bus.serve(s.listSatellites, (req, ctx) => ops.satellites.list(req, ctx.access));
  bus.serve(s.getSatellite, (req, ctx) => ops.satellites.get(req, ctx.access));
  bus.serve(s.getMetrics, (req, ctx) => ops.satellites.metrics(req, ctx.access));
  bus.serve(s.revokeSatellite, (req, ctx) => ops.satellites.revoke(req, ctx.access, auditContextOf(ctx)));
  bus.serve(s.updateAllowlist, (req, ctx) => ops.satellites.updateAllowlist(req, ctx.access, auditContextOf(ctx)));
}
