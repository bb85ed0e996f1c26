import type { Bus } from '@orbital/bus';
import type { DbSetupReply, DbStatus } from '@orbital/contracts';
import { dbSetupSubject, dbStatusSubject } from '@orbital/contracts';

export function serveDbHandlers(bus: Bus, deps: { readStatus(): Promise<DbStatus>; setup(): Promise<DbSetupReply> }) {
  bus.serve(dbStatusSubject, () => deps.readStatus());
  bus.serve(dbSetupSubject, () => deps.setup());
}
