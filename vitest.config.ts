import { defineConfig } from "vitest/config";

// @actions/workflow-parser imports its JSON schema without an import attribute, which Node's
// loader refuses; inlined, vite loads it.
const INLINE = ["@actions/workflow-parser"];

export default defineConfig({
  test: {
    // E2E tests drive real OpenCode on a 2-core machine, where the CPU is the limit: a worker per
    // core costs the least CPU for the same work. More workers added contention and more cold
    // servers (the whole suite from a clean clone: 4 workers 2,050 CPU-s and 1,040 s, 3 workers
    // 1,737 and 899 s, 2 workers 1,565 and 862 s; docs/testing.md); the time limits below are hang
    // guards, far above what a test takes.
    maxWorkers: 2,
    projects: [
      {
        // Many unit tests run real git, npm and node processes; beside the e2e tests, on 2 cores, a
        // process start can take seconds, so the 5 s default is a timing threshold, not a hang guard.
        test: {
          name: "unit",
          // No unit test mocks modules, stubs globals or changes process.env, so a worker can reuse
          // the modules it loaded for the files before: importing src/ per file was two thirds of
          // the unit project's time (import 250 s of 420 s on a loaded 2-core machine, 17 s without).
          isolate: false,
          include: ["test/unit/**/*.test.ts"],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          server: { deps: { inline: INLINE } },
        },
      },
      {
        test: {
          name: "e2e",
          // A worker runs its files in one process, so it keeps its shared OpenCode servers across
          // them (test/support/e2e.ts): no e2e test mocks modules, stubs globals or changes process.env.
          isolate: false,
          include: ["test/e2e/**/*.test.ts"],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          globalSetup: ["test/support/global-setup.ts"],
          server: { deps: { inline: INLINE } },
        },
      },
    ],
  },
});
