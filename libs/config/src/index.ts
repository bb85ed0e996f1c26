export {
  commaList,
  envBoolean,
  logEnv,
  metricsEnv,
  type NatsEnv,
  natsEnv,
  natsProductionVariables,
  networkList,
  type PostgresEnv,
  port,
  positiveInt,
  postgresEnv,
  postgresProductionVariables,
  type RedisEnv,
  redisEnv,
  redisProductionVariables,
} from './commonEnv.ts';
export { databaseServiceConfig } from './databaseServiceConfig.ts';
export { fastifyTimeouts, type HttpTimeoutsEnv, httpTimeoutsEnv, httpTimeoutsProblem } from './httpTimeouts.ts';
export { ConfigError, loadConfig, loadConfigOrExit } from './loadConfig.ts';
export { productionNodeEnv, productionRequirements, requireInProduction } from './requireInProduction.ts';
