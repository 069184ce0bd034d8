/**
 * The fault suite (`pnpm test:faults`, docs/reliability.md): the apps as separate processes under
 * load while one fault is injected per scenario. It runs on a private Postgres cluster and private
 * Redis servers (scenarios restart them), one file at a time.
 */
const base = require("./jest.config");

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ["<rootDir>/faults"],
  testMatch: ["**/*.faults.test.ts"],
  globalSetup: "<rootDir>/faults/support/global-setup.ts",
  globalTeardown: "<rootDir>/faults/support/global-teardown.ts",
  testTimeout: 240_000,
  maxWorkers: 1,
};
