export * from "./anvil";
export * from "./fixtures";
export { createTestDatabase, dropTestDatabase, testDatabaseUrl } from "./test-database";
export type { TestDatabase, TestDatabaseOptions } from "./test-database";
export { dropStaleTestDatabases } from "./stale-databases";
export { testServerUrl } from "./postgres-server";
export { testRunId } from "./run-id";
export { deleteRedisKeys, testQueuePrefix } from "./redis";
