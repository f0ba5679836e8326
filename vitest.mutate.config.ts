import { defineConfig } from "vitest/config";
import { SAFETY_MODULES } from "./stryker.modules.mjs";

// Stryker's test runs (stryker.config.mjs): the unit tests of the safety modules, as the unit project
// of vitest.config.ts runs them, never the e2e project (an OpenCode start per test, far too slow once
// per mutant on 2 cores). scripts/mutate.mjs names one module's tests in OTTO_MUTATE_TESTS; without
// it, the tests of every safety module.
const only = process.env.OTTO_MUTATE_TESTS?.split(",").filter(Boolean);

export default defineConfig({
  test: {
    include: only?.length ? only : [...new Set(Object.values(SAFETY_MODULES).flat())],
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
