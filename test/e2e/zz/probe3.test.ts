import { describe, expect, it } from "vitest";
import { slashCommand, useE2E } from "../../support/index.ts";

const flags = JSON.parse(process.env.PROBE_ENV ?? "{}") as Record<string, string>;
describe("probe3", () => {
  const e2e = useE2E();
  it("runs", async () => {
    const ws = await e2e.workspace();
    for (let i = 0; i < 4; i++) {
      e2e.model.script(...slashCommand("otto_config"));
      const r = await e2e.run(ws, ["run", "--command", "otto-config", "--", "show"], { env: flags });
      expect(r.exitCode).toBe(0);
    }
  });
});
