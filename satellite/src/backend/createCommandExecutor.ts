import type { CommandResult, SatelliteCommand } from '@orbital/contracts';
import type { Logger } from '@orbital/logger';
import type { EventSink } from '../events/eventSink.ts';
import type { ServerRuntime } from '../runtime/createServerRuntime.ts';
import { serverRefOf } from '../runtime/serverRefOf.ts';
import type { ConfigSync } from './createConfigSync.ts';
import type { SatelliteApi } from './createSatelliteApi.ts';
import { type CredentialCheck, statusAfterCheck, validateCredentials } from './validateCredentials.ts';

type Final = Pick<CommandResult, 'status' | 'result' | 'error_message'>;

class CommandFailure extends Error {}

/**
 * Runs the commands polling leased: reports `acknowledged`, `executing`, then `completed` or `failed`
 * for each. A command id is executed once: ids are remembered (the newest `memory` of them) with their
 * final result, so a command delivered again (a re-poll, a lease that ran out because a report was
 * lost) only has its final result reported again.
 */
export function createCommandExecutor(options: {
  api: SatelliteApi;
  runtime: ServerRuntime;
  configSync: ConfigSync;
  events: EventSink;
  logger: Logger;
  now?: () => number;
  memory?: number;
  credentialCheckTimeoutMs?: number;
  validate?: typeof validateCredentials;
}) {
  const { api, runtime, configSync, events, logger } = options;
  const now = options.now ?? Date.now;
  const memory = options.memory ?? 1000;
  const validate = options.validate ?? validateCredentials;
  const finals = new Map<string, Final>();
  const executing = new Set<string>();
  let executedCount = 0;

  const remember = (id: string, final: Final) => {
    finals.set(id, final);
    while (finals.size > memory) {
      const oldest = finals.keys().next().value as string;
      finals.delete(oldest);
    }
  };

  const report = async (commandId: string, result: Final) => {
    const body: CommandResult = { command_id: commandId, status: result.status };
    if (result.result) body.result = result.result;
    if (result.error_message) body.error_message = result.error_message.slice(0, 4000);
    const outcome = await api.call('POST', '/command-results', body);
    if (outcome.kind !== 'ok') {
      // Not retried here: the lease runs out, the command comes back, and its final result is reported again.
      logger.warn({ command_id: commandId, status: result.status, reply: outcome.kind }, 'command result not reported');
    }
  };

  /** The installation a command names, checked against the team the command is scoped to. */
  const configurationFor = (installationId: string, teamId: string) => {
    const config = runtime.configuration(installationId);
    if (config && config.team_id !== teamId) {
      throw new CommandFailure(`installation ${installationId} does not belong to team ${teamId}`);
    }
    return config;
  };

  /** A command may name an installation the last fetched configuration does not have yet: fetch once. */
  const ensureConfigured = async (installationId: string, teamId: string) => {
    if (configurationFor(installationId, teamId)) return;
    await configSync.sync('command');
    if (!configurationFor(installationId, teamId)) {
      throw new CommandFailure(`installation ${installationId} is not in this satellite's configuration`);
    }
  };

  const credentialCheck = async (installationId: string, teamId: string) => {
    const config = configurationFor(installationId, teamId);
    if (!config) throw new CommandFailure(`installation ${installationId} is not in this satellite's configuration`);
    const server = runtime.server(installationId);
    let check: CredentialCheck;
    try {
      check = await validate(config, server, { timeoutMs: options.credentialCheckTimeoutMs ?? 15000 });
    } catch (error) {
      check = { outcome: 'failed', message: (error as Error).message };
    }
    const status = statusAfterCheck(check.outcome);
    events.emit('mcp.server.status_changed', {
      ...serverRefOf(config),
      status,
      previous_status: server?.status() ?? null,
      status_message: check.message,
      reason: 'credential_validation',
      changed_at: new Date(now()).toISOString(),
    });
    return { check_type: 'credential_validation', outcome: check.outcome, status, message: check.message };
  };

  const run = async (command: SatelliteCommand): Promise<Record<string, unknown>> => {
    switch (command.command_type) {
      case 'configure': {
        const synced = await configSync.sync(`configure:${command.payload.event}`);
        const id = command.payload.installation_id;
        // Recovery of an installation the backend found offline: a fresh process or connection
        // (which rediscovers its tools), unless it is online again by now.
        if (command.payload.event === 'mcp_recovery' && id && configurationFor(id, command.payload.team_id)) {
          const status = runtime.server(id)?.status();
          if (status !== 'online') await runtime.restart(id);
        }
        return { ...synced, event: command.payload.event };
      }
      case 'spawn': {
        const { installation_id: id, team_id: team } = command.payload;
        await ensureConfigured(id, team);
        return { outcome: await runtime.spawn(id), status: runtime.server(id)?.status() ?? null };
      }
      case 'restart': {
        const { installation_id: id, team_id: team } = command.payload;
        await ensureConfigured(id, team);
        return { outcome: await runtime.restart(id), status: runtime.server(id)?.status() ?? null };
      }
      case 'kill': {
        const { installation_id: id, team_id: team } = command.payload;
        configurationFor(id, team);
        return { outcome: await runtime.kill(id) };
      }
      case 'health_check': {
        const { installation_id: id, team_id: team, check_type: checkType } = command.payload;
        if (checkType === 'credential_validation') return credentialCheck(id, team);
        configurationFor(id, team);
        const snapshot = runtime.server(id)?.snapshot();
        return {
          check_type: 'process',
          running: snapshot !== undefined,
          status: snapshot?.status ?? null,
          health: snapshot?.health ?? 'unknown',
          state: snapshot?.state ?? null,
          status_reason: snapshot?.status_reason ?? null,
          protocol_version: snapshot?.protocol_version ?? null,
        };
      }
    }
  };

  const executeOne = async (command: SatelliteCommand) => {
    const previous = finals.get(command.id);
    if (previous) {
      await report(command.id, previous);
      return;
    }
    if (executing.has(command.id)) return;
    executing.add(command.id);
    try {
      let final: Final;
      if (command.expires_at && Date.parse(command.expires_at) < now()) {
        final = { status: 'failed', error_message: 'the command expired before the satellite could run it' };
      } else {
        await report(command.id, { status: 'executing' });
        try {
          final = { status: 'completed', result: await run(command) };
        } catch (error) {
          final = { status: 'failed', error_message: (error as Error).message || 'command failed' };
        }
      }
      executedCount++;
      remember(command.id, final);
      logger.info(
        {
          command_id: command.id,
          command_type: command.command_type,
          status: final.status,
          reason: final.error_message,
        },
        'command executed',
      );
      await report(command.id, final);
    } finally {
      executing.delete(command.id);
    }
  };

  return {
    /** Acknowledges every new command at once (so no lease runs out while others run), then runs them in order. */
    async handle(commands: readonly SatelliteCommand[]) {
      const fresh = commands.filter((c) => !finals.has(c.id) && !executing.has(c.id));
      await Promise.all(fresh.map((c) => report(c.id, { status: 'acknowledged' })));
      for (const command of commands) await executeOne(command);
    },
    stats: () => ({ executed: executedCount, remembered: finals.size }),
  };
}

export type CommandExecutor = ReturnType<typeof createCommandExecutor>;
