import type { Bus } from '@orbital/bus';
import { jobsStatusSubject } from '@orbital/contracts';
import { proxyRoute } from '../http/proxyRoute.ts';

/**
 * Operators' view of the background schedules: last run, duration and outcome of each, answered by the
 * jobs service from BullMQ's records (the jobs service checks the caller's role again).
 */
export function jobsRoutes(bus: Bus) {
  return [
    proxyRoute(bus, jobsStatusSubject, {
      method: 'GET',
      url: '/api/jobs/status',
      summary: 'Last run, duration and outcome of each background job schedule',
      tags: ['jobs'],
      toRequest: () => ({}),
    }),
  ];
}
