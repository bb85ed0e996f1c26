import type { Bus } from '@orbital/bus';
import { jobsStatusSubject, type ScheduleStatus } from '@orbital/contracts';
import { AppError } from '@orbital/errors';

/**
 * `jobs.status.get`, for operators (global admins through gateway-api; its access is declared with
 * the subject). Redis failures become `unavailable`, so the caller gets a prompt, honest answer.
 */
export function serveJobsStatus(bus: Bus, readStatus: () => Promise<ScheduleStatus[]>): void {
  bus.serve(jobsStatusSubject, async () => {
    try {
      return await readStatus();
    } catch (cause) {
      throw new AppError('unavailable', 'The job store (Redis) did not answer', { cause });
    }
  });
}
