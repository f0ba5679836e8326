// Mutation testing of the safety floor (docs/testing.md, "Mutation testing"): the modules whose
// failure would leak a secret, run code outside the sandbox, push what must not leave or let a
// weakened check through, against the unit project only. `npm run mutate`; one module:
// `npm run mutate -- --mutate src/workspace/airlock.ts`.
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutate.config.ts", related: true },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: [
    "src/sandbox/bwrap.ts",
    "src/sandbox/home.ts",
    "src/sandbox/secret-files.ts",
    "src/sandbox/sandbox-env.ts",
    "src/workspace/airlock.ts",
    "src/workspace/push-scan.ts",
    "src/workspace/secret-scan.ts",
    "src/core/redact.ts",
    "src/workspace/detect-weakened-checks.ts",
    "src/workspace/restored-checks.ts",
    "src/config/trust.ts",
    "src/session/permission-guard.ts",
    "src/guard/session-guard.ts",
    "src/crew/render.ts",
  ],
  coverageAnalysis: "perTest",
  // Two cores shared with other work: one test process at a time.
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
