import type { Endpoint } from './infrastructure.ts';

/**
 * Starts the missing server in a container, for machines that have Docker but not the servers. The
 * module is imported lazily: machines that run the servers never load testcontainers.
 */
export async function startContainer(
  name: 'postgres' | 'nats' | 'redis',
): Promise<Endpoint & { stop(): Promise<void> }> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const spec = {
    postgres: {
      image: 'postgres:17-alpine',
      port: 5432,
      env: { POSTGRES_HOST_AUTH_METHOD: 'trust' } as Record<string, string>,
      command: [] as string[],
      wait: Wait.forLogMessage(/database system is ready to accept connections/, 2),
    },
    nats: {
      image: 'nats:2.11-alpine',
      port: 4222,
      env: {} as Record<string, string>,
      command: ['-js'],
      wait: Wait.forLogMessage(/Server is ready/),
    },
    redis: {
      image: 'redis:7-alpine',
      port: 6379,
      env: {} as Record<string, string>,
      command: [] as string[],
      wait: Wait.forLogMessage(/Ready to accept connections/),
    },
  }[name];
  let container = new GenericContainer(spec.image)
    .withExposedPorts(spec.port)
    .withEnvironment(spec.env)
    .withWaitStrategy(spec.wait);
  if (spec.command.length > 0) container = container.withCommand(spec.command);
  const started = await container.start();
  return {
    host: started.getHost(),
    port: started.getMappedPort(spec.port),
    stop: async () => {
      await started.stop();
    },
  };
}
