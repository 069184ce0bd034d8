/**
 * One jest run for the whole workspace. Unit tests (`*.test.ts`) sit beside the code; integration
 * tests (`*.int.test.ts`) talk to the real Postgres, Redis and anvil; the system tests, which drive
 * the gateway and the workers together, are in e2e/. The global setup creates a fresh database and
 * a Redis key prefix for this run (packages/testing).
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/apps", "<rootDir>/packages", "<rootDir>/e2e", "<rootDir>/scripts", "<rootDir>/examples"],
  testMatch: ["**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/", "/generated/"],
  transform: {
    "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/tsconfig.base.json", diagnostics: false }],
  },
  globalSetup: "<rootDir>/packages/testing/src/jest/global-setup.ts",
  globalTeardown: "<rootDir>/packages/testing/src/jest/global-teardown.ts",
  testTimeout: 60_000,
  maxWorkers: 2,
};
