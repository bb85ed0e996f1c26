import type { Bus } from '@orbital/bus';
import { dbSetupRequest, dbSetupSubject, dbStatusSubject } from '@orbital/contracts';
import { proxyRoute } from '../http/proxyRoute.ts';

/**
 * Database setup. Both routes are public because they run before any user can exist (the first admin
 * is created once identity's schema is set up), and setup can only ever succeed once: a second call is
 * a 409.
 */
export function dbRoutes(bus: Bus, options: { setupTimeoutMs: number }) {
  return [
    proxyRoute(bus, dbStatusSubject, {
      method: 'GET',
      url: '/api/db/status',
      summary: 'Whether the database is configured and initialised',
      tags: ['database'],
      responseShape: 'bare',
      toRequest: () => ({}),
    }),
    proxyRoute(bus, dbSetupSubject, {
      method: 'POST',
      url: '/api/db/setup',
      summary: 'Initialise the database: every service applies its migrations',
      tags: ['database'],
      body: dbSetupRequest,
      responseShape: 'bare',
      timeoutMs: options.setupTimeoutMs,
      toRequest: ({ body }) => body,
    }),
  ];
}
