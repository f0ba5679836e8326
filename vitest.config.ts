import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // E2E tests start real OpenCode processes; the machine has 2 cores.
    maxWorkers: 2,
    projects: [
      {
        test: { name: "unit", include: ["test/unit/**/*.test.ts"] },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          globalSetup: ["test/support/global-setup.ts"],
        },
      },
    ],
  },
});
