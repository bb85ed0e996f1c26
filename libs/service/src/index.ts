export { collectConsumerLag } from './collectConsumerLag.ts';
export { type BoundedQueue, createBoundedQueue } from './createBoundedQueue.ts';
export { createMetrics, type ServiceMetrics } from './createMetrics.ts';
export {
  createReadiness,
  excludedChecks,
  type Readiness,
  type ReadinessCheckOptions,
  type ReadinessReport,
} from './createReadiness.ts';
export { createRedisClient, isRedisReady, type RedisRole } from './createRedisClient.ts';
export { handleShutdown, type ShutdownStep } from './handleShutdown.ts';
export { type AppDeps, type RunServiceOptions, runService, type ServiceContext } from './runService.ts';
export {
  createDatabaseOwner,
  type DatabaseOwnerApp,
  type DatabaseOwnerHandle,
  type DatabaseOwnerOptions,
  startDatabaseOwner,
} from './startDatabaseOwner.ts';
export { type OpsServer, startOpsServer } from './startOpsServer.ts';
