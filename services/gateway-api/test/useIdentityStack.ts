import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import {
  callerAs,
  type IdentityStack,
  type IdentityStackOptions,
  loginAdmin,
  type Session,
  startIdentityStack,
} from './identityStack.ts';

/** What a test file of the identity family reaches once its stack is up. */
export type IdentityStackInUse = {
  readonly stack: IdentityStack;
  /** The first global admin, signed in on the first replica. */
  readonly admin: Session;
  /** One gateway replica's app; the first unless told. */
  replica(index?: number): FastifyInstance;
  /** Calls on a replica as the first global admin. */
  asAdmin(index?: number): ReturnType<typeof callerAs>;
  /** Rows of one query on the stack's own database, for what no route shows. */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult['rows']>;
  /** Signs the first admin in again, for a file whose test ended the earlier session. */
  signInAdminAgain(): Promise<void>;
};

/**
 * Starts one identity stack for the file (its beforeAll, registered before the file's own so they run
 * after it), signs the first admin in, and stops the stack after the file. The file says only what
 * differs: its options and its own data.
 */
export function useIdentityStack(options: IdentityStackOptions = {}): IdentityStackInUse {
  let stack: IdentityStack | undefined;
  let admin: Session | undefined;
  beforeAll(async () => {
    stack = await startIdentityStack(options);
    admin = await loginAdmin(stack.app);
  });
  afterAll(async () => {
    await stack?.stop();
  });
  const started = () => {
    if (!stack || !admin) throw new Error('the identity stack is not up (use it inside tests and hooks)');
    return { stack, admin };
  };
  const replica = (index = 0) => {
    const app = started().stack.gateways[index]?.app;
    if (!app) throw new Error(`no replica ${index}`);
    return app;
  };
  return {
    get stack() {
      return started().stack;
    },
    get admin() {
      return started().admin;
    },
    replica,
    asAdmin: (index = 0) => callerAs(replica(index), started().admin),
    async signInAdminAgain() {
      admin = await loginAdmin(started().stack.app);
    },
    async sql(text, values = []) {
      const client = new pg.Client({ ...started().stack.env.postgres });
      await client.connect();
      try {
        return (await client.query(text, values)).rows;
      } finally {
        await client.end();
      }
    },
  };
}
