export type PostgresConnection = {
  host: string;
  port: number;
  database: string;
  user: string;
  password?: string | undefined;
  /** TLS without certificate verification: what POSTGRES_SSL='true' means (see `postgresEnv`). */
  ssl: boolean;
};

/** The connection the POSTGRES_* variables describe, or null when host, database or user is missing. */
export function postgresConnectionFromEnv(env: {
  POSTGRES_HOST?: string | undefined;
  POSTGRES_PORT: number;
  POSTGRES_DATABASE?: string | undefined;
  POSTGRES_USER?: string | undefined;
  POSTGRES_PASSWORD?: string | undefined;
  POSTGRES_SSL: boolean;
}): PostgresConnection | null {
  if (!env.POSTGRES_HOST || !env.POSTGRES_DATABASE || !env.POSTGRES_USER) return null;
  return {
    host: env.POSTGRES_HOST,
    port: env.POSTGRES_PORT,
    database: env.POSTGRES_DATABASE,
    user: env.POSTGRES_USER,
    password: env.POSTGRES_PASSWORD,
    ssl: env.POSTGRES_SSL,
  };
}

/**
 * The connection URI for slonik. With `schema`, every connection of the pool starts with that schema
 * first on its search_path, so a service's queries name its tables without qualifying them.
 */
export function connectionUri(connection: PostgresConnection, options: { schema?: string } = {}): string {
  const auth = connection.password
    ? `${encodeURIComponent(connection.user)}:${encodeURIComponent(connection.password)}`
    : encodeURIComponent(connection.user);
  const uri = `postgres://${auth}@${connection.host}:${connection.port}/${encodeURIComponent(connection.database)}`;
  const params = new URLSearchParams();
  if (connection.ssl) params.set('sslmode', 'no-verify');
  params.set('application_name', options.schema ? `orbital-${options.schema}` : 'orbital');
  if (options.schema) {
    if (!/^[a-z][a-z0-9_]*$/.test(options.schema)) throw new Error(`invalid schema name: ${options.schema}`);
    params.set('options', `-c search_path=${options.schema},public`);
  }
  return `${uri}?${params.toString()}`;
}

/** Options for a plain `pg.Client`, used where slonik does not fit (multi-statement migration files). */
export function pgClientConfig(connection: PostgresConnection) {
  return {
    host: connection.host,
    port: connection.port,
    database: connection.database,
    user: connection.user,
    password: connection.password,
    ssl: connection.ssl ? { rejectUnauthorized: false } : undefined,
    application_name: 'orbital',
  };
}
