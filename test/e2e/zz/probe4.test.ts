import { describe, expect, it } from "vitest";
import { text, useE2E } from "../../support/index.ts";

const plugin = process.env.PROBE_PLUGIN !== "0";
describe("probe4", () => {
  const e2e = useE2E();
  it("runs", async () => {
    const ws = await e2e.workspace({ plugin });
    for (let i = 0; i < 4; i++) {
      e2e.model.script({ match: { lastUser: "hello" }, reply: text("hi") });
      const r = await e2e.run(ws, ["run", "hello"], { env: JSON.parse(process.env.PROBE_ENV ?? "{}") });
      expect(r.exitCode).toBe(0);
    }
  });
});
