export {
  envBoolean,
  logEnv,
  metricsEnv,
  type NatsEnv,
  natsEnv,
  networkList,
  type PostgresEnv,
  port,
  positiveInt,
  postgresEnv,
  type RedisEnv,
  redisEnv,
} from './commonEnv.ts';
export { ConfigError, loadConfig, loadConfigOrExit } from './loadConfig.ts';
