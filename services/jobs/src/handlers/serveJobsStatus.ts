import type { Bus } from '@orbital/bus';
import { type CallerIdentity, jobsStatusSubject, type ScheduleStatus } from '@orbital/contracts';
import { AppError } from '@orbital/errors';

/**
 * `jobs.status.get`: for operators, so global admins (through gateway-api) and platform services only.
 * Redis failures become `unavailable`, so the caller gets a prompt, honest answer.
 */
export function serveJobsStatus(bus: Bus, readStatus: () => Promise<ScheduleStatus[]>): void {
  bus.serve(jobsStatusSubject, async (_request, context) => {
    if (!mayReadStatus(context.identity)) {
      throw new AppError('forbidden', 'Only global administrators may read the job status');
    }
    try {
      return await readStatus();
    } catch (cause) {
      throw new AppError('unavailable', 'The job store (Redis) did not answer', { cause });
    }
  });
}

function mayReadStatus(identity: CallerIdentity): boolean {
  if (identity.kind === 'service') return true;
  return identity.kind === 'user' && identity.globalRole === 'global_admin';
}
