import type { Logger } from '@orbital/logger';

/**
 * Whether /documentation is served, following the global setting `global.enable_swagger_docs`. The
 * value is read at most once per `ttlMs` (a settings change shows within that time on every replica);
 * when the settings service cannot answer, the last known value stands (at first, on: the setting's default).
 */
export function createDocsSwitch(deps: {
  read(): Promise<boolean | undefined>;
  logger: Logger;
  ttlMs?: number;
  now?: () => number;
}): () => Promise<boolean> {
  const ttlMs = deps.ttlMs ?? 10_000;
  const now = deps.now ?? Date.now;
  let value = true;
  let readAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<void> | null = null;
  return async () => {
    if (now() - readAt >= ttlMs) {
      pending ??= deps
        .read()
        .then((read) => {
          value = read ?? true;
          readAt = now();
        })
        .catch((err: unknown) => {
          deps.logger.warn({ err }, 'could not read global.enable_swagger_docs; keeping the last known value');
          readAt = now();
        })
        .finally(() => {
          pending = null;
        });
      await pending;
    }
    return value;
  };
}
