export { captureLog, type LogCapture } from './captureLog.ts';
export { createTestBuses, type TestBuses } from './createTestBuses.ts';
export { createTestEnvironment, type TestEnvironment } from './createTestEnvironment.ts';
export { freePort } from './freePort.ts';
export { identityEnvForEntry, type TestIdentityKeys, testIdentityKeys } from './identityKeys.ts';
export {
  defaults,
  type Endpoint,
  hasDocker,
  InfrastructureMissingError,
  isReachable,
  startCommands,
} from './infrastructure.ts';
export { closeNow, listenLocally } from './listenLocally.ts';
export { markDatabaseSetUp } from './markDatabaseSetUp.ts';
export { migrateUpTo, startMigrationTest } from './migrateUpTo.ts';
export { defineTestStream, openStreamBus } from './openStreamBus.ts';
export { type PlatformNats, startPlatformNats } from './platformNats.ts';
export {
  type ConformanceCheck,
  type ConformanceRun,
  expectedFailureReasons,
  runConformanceSuite,
} from './runConformanceSuite.ts';
export { clientConnectedBatch } from './satelliteEventBatch.ts';
export { linkIn, type MailServer, type ReceivedMail, startMailServer } from './startMailServer.ts';
export { type PrivateNatsServer, startNatsServer } from './startNatsServer.ts';
export { type OAuthProtectedMcpServer, startOAuthProtectedMcpServer } from './startOAuthProtectedMcpServer.ts';
export { type OidcAccount, type OidcProvider, startOidcProvider } from './startOidcProvider.ts';
export { type PrivateRedisServer, startRedisServer } from './startRedisServer.ts';
export { type RepohostAccount, type RepohostProvider, startRepohostProvider } from './startRepohostProvider.ts';
export { type RoundRobinProxy, startRoundRobinProxy } from './startRoundRobinProxy.ts';
export { type ChildService, startServiceProcess } from './startServiceProcess.ts';
export {
  type ServiceUnderTest,
  type ServiceUnderTestOptions,
  startServiceUnderTest,
} from './startServiceUnderTest.ts';
export { startTcpProxy, type TcpProxy } from './startTcpProxy.ts';
export { trickleRequest } from './trickleRequest.ts';
export { waitForLine } from './waitForLine.ts';
