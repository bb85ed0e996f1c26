import type { Bus } from '@orbital/bus';
import { jobsStatusSubject, scheduleStatus } from '@orbital/contracts';
import { z } from 'zod';
import { defineRoute } from '../http/defineRoute.ts';

/**
 * Operators' view of the background schedules: last run, duration and outcome of each, answered by the
 * jobs service from BullMQ's records (the jobs service checks the caller's role again).
 */
export function jobsRoutes(bus: Bus) {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/jobs/status',
      summary: 'Last run, duration and outcome of each background job schedule',
      tags: ['jobs'],
      access: { kind: 'permission', permission: 'jobs.view' },
      response: z.array(scheduleStatus),
      handler: ({ identity, requestId }) => bus.request(jobsStatusSubject, {}, { identity, requestId }),
    }),
  ];
}
