import { randomUUID } from 'node:crypto';
import type { AccessGrant } from '@orbital/access';
import { publishEvent } from '@orbital/bus';
import {
  type CommandResult,
  type CommandView,
  commandCreatedEvent,
  commandPayloads,
  type ParsedRequestOf,
  type registrySubjects,
} from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { CommandRow } from '../db/registryRows.ts';
import * as store from '../db/registryStore.ts';
import { choosePollingMode } from './choosePollingMode.ts';
import type { RegistryDeps } from './registryDeps.ts';
import { toCommandView, toSatelliteCommand } from './registryViews.ts';

type Req<K extends keyof typeof registrySubjects> = ParsedRequestOf<(typeof registrySubjects)[K]>;

/** Progress order of reported statuses; completed and failed are both final. */
const progress: Record<CommandRow['status'], number> = {
  pending: 0,
  leased: 0,
  acknowledged: 1,
  executing: 2,
  completed: 3,
  failed: 3,
  expired: 3,
};

/**
 * The command queue: commands ordered by priority then age, each leased to
 * one poll, acknowledged, retried when a lease runs out until max_attempts, expired past their expiry;
 * results idempotent by command id.
 */
export function createCommandQueue(deps: RegistryDeps) {
  const { pool, now, logger, bus } = deps;

  /**
   * Tells whoever waits for a satellite's commands, after the commit, so a poll woken by the event finds
   * the command: every gateway replica holding a poll of this satellite answers it at once. The queue
   * entry is what counts: a lost event only means the command waits for the satellite's next poll, so
   * a failure is logged, not returned.
   */
  async function announce(command: CommandView): Promise<void> {
    try {
      await publishEvent(
        bus,
        commandCreatedEvent,
        {
          command_id: command.id,
          satellite_id: command.satellite_id,
          team_id: command.team_id,
          command_type: command.command_type,
          priority: command.priority,
          correlation_id: command.correlation_id,
          created_at: command.created_at,
          expires_at: command.expires_at,
        },
        { msgId: `command:${command.id}` },
      );
    } catch (err) {
      logger.warn({ err, command_id: command.id }, 'command queued but evt.command.created not published');
    }
  }

  return {
    async create(request: Req<'createCommand'>) {
      const payload = commandPayloads[request.command_type].safeParse(request.payload);
      if (!payload.success) {
        throw new AppError('validation_failed', `The payload does not fit a ${request.command_type} command`, {
          details: payload.error.issues.map((i) => ({ path: ['payload', ...i.path].join('.'), message: i.message })),
        });
      }
      const teamId = payload.data.team_id;
      const at = now();
      const created = await pool.get().transaction(async (tx) => {
        let targets: readonly string[];
        if (request.satellite_id) {
          const satellite = await store.findSatellite(tx, request.satellite_id);
          if (!satellite) throw new AppError('not_found', 'No such satellite');
          if (satellite.status === 'revoked') throw new AppError('conflict', 'The satellite has been revoked');
          if (satellite.satellite_type === 'team' && satellite.team_id !== teamId) {
            throw new AppError('forbidden', "A team satellite only receives its own team's commands", {
              details: { satellite_team_id: satellite.team_id, command_team_id: teamId },
            });
          }
          targets = [satellite.id];
        } else {
          targets = await store.satellitesServingTeam(tx, teamId);
        }
        const rows = await store.insertCommands(tx, {
          satelliteIds: targets,
          ids: targets.map(() => randomUUID()),
          teamId,
          type: request.command_type,
          priority: request.priority,
          payload: payload.data,
          correlationId: request.correlation_id ?? null,
          maxAttempts: request.max_attempts,
          expiresAt: new Date(at.getTime() + (request.expires_in_ms ?? deps.defaultCommandExpiryMs)),
          now: at,
        });
        logger.info(
          { event: 'command.created', command_type: request.command_type, team_id: teamId, satellites: rows.length },
          'command queued',
        );
        return rows.map(toCommandView);
      });
      await Promise.all(created.map(announce));
      return { commands: created };
    },

    async get({ command_id }: Req<'getCommand'>) {
      const row = await store.findCommand(pool.get(), command_id);
      if (!row) throw new AppError('not_found', 'No such command');
      return toCommandView(row);
    },

    async poll({ satellite_id, limit }: Req<'pollCommands'>, access: AccessGrant) {
      // A global admin looking at a satellite's queue sees what its next poll would get; nothing is leased.
      const admin = access.userId() !== null;
      const at = now();
      const outcome = admin
        ? await store.peekCommands(pool.get(), { satelliteId: satellite_id, limit, now: at })
        : await store.pollCommands(pool.get(), { satelliteId: satellite_id, limit, leaseMs: deps.leaseMs, now: at });
      if (admin && !outcome) throw new AppError('not_found', 'No such satellite');
      if (!outcome || outcome.satellite.status === 'revoked') {
        throw new AppError('unauthenticated', 'The satellite is not registered or its key was revoked', {
          instructions: 'Register again with a new registration token.',
        });
      }
      // A satellite that never had a command has been quiet since it registered, not forever: a new
      // one polls at the normal rate for its first ten minutes, so its first installations arrive soon.
      const lastCommandAt = new Date(outcome.satellite.lastCommandAt ?? outcome.satellite.registeredAt);
      // An inactive satellite gets an empty list, not an error, until its first heartbeat.
      const active = outcome.satellite.status === 'active';
      return {
        commands: outcome.commands.map(toSatelliteCommand),
        polling: choosePollingMode({
          active,
          delivered: outcome.commands.map((c) => c.priority),
          stillPending: outcome.stillPending,
          lastCommandAt,
          now: at,
        }),
      };
    },

    async report({ satellite_id, result }: Req<'reportResult'>) {
      return pool.get().transaction(async (tx) => {
        const command = await store.lockCommand(tx, result.command_id);
        // Another satellite's command is "not found": a satellite learns nothing about others' queues.
        if (!command || command.satellite_id !== satellite_id) throw new AppError('not_found', 'No such command');
        const change = decide(command, result);
        if (change === 'unchanged') return { command_id: command.id, status: result.status, changed: false };
        await store.updateCommandStatus(tx, command.id, {
          status: result.status,
          result: result.result ?? null,
          errorMessage: result.error_message ?? null,
          terminal: result.status === 'completed' || result.status === 'failed',
          now: now(),
        });
        return { command_id: command.id, status: result.status, changed: true };
      });
    },
  };
}

/**
 * Idempotency: a repeated or late report (a status the command has already reached or passed) changes
 * nothing and is not an error; a report that contradicts a final outcome is a conflict.
 */
function decide(command: CommandRow, result: CommandResult): 'apply' | 'unchanged' {
  const current = progress[command.status];
  const incoming = progress[result.status];
  if (current === 3) {
    if (command.status === result.status || incoming < 3) return 'unchanged';
    throw new AppError('conflict', `The command is already ${command.status}`, {
      details: { status: command.status },
      instructions: 'Report each command outcome once; a final outcome cannot change.',
    });
  }
  return incoming > current ? 'apply' : 'unchanged';
}
