// Mutation testing of the safety floor (docs/testing.md, "Mutation testing of the safety floor"):
// the modules of stryker.modules.mjs, against their unit tests only. `npm run mutate` runs them one
// at a time (scripts/mutate.mjs); one module: `npm run mutate -- src/workspace/airlock.ts`.
import { SAFETY_MODULES } from "./stryker.modules.mjs";

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutate.config.ts", related: true },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: Object.keys(SAFETY_MODULES),
  coverageAnalysis: "perTest",
  // Two cores shared with other work: one test process at a time (scripts/mutate.mjs passes
  // `--concurrency`: two on an idle machine).
  concurrency: 1,
  // Many unit tests run real git and bubblewrap: a mutant that hangs is cut off, not waited for.
  timeoutMS: 20_000,
  timeoutFactor: 2,
  dryRunTimeoutMinutes: 20,
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: "reports/.stryker-tmp",
  cleanTempDir: "always",
  ignorePatterns: ["reports", "bench", "dist", "coverage", ".changeset", "test/e2e"],
  thresholds: { high: 85, low: 70, break: null },
};
