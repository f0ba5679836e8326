import { defineConfig } from "vitest/config";

// Stryker's test runs (stryker.config.mjs): the unit tests of the safety modules, as the unit project
// of vitest.config.ts runs them. Not the e2e project (an OpenCode start per test, far too slow once
// per mutant on 2 cores), and not the whole unit project: through the folders' index files nearly
// every unit test imports a safety module, and the first run (all of them, one process) outlasted
// Stryker's time limit on a loaded 2-core machine.
export default defineConfig({
  test: {
    include: [
      "test/unit/core/redact.test.ts",
      "test/unit/safety/secrets-corpus.test.ts",
      "test/unit/workspace/{airlock,airlock-bundle,push-scan,push,env-secrets,restored-checks,detect-weakened-checks,git-guard,own-git}.test.ts",
      "test/unit/sandbox/*.test.ts",
      "test/unit/guard/session-guard.test.ts",
      "test/unit/config/trust.test.ts",
      "test/unit/session/permission-guard.test.ts",
      "test/unit/crew/{render,across}.test.ts",
    ],
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
