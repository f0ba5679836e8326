import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
import { describe, it } from "vitest";
import { execa } from "execa";
import { OPENCODE_BIN, slashCommand, useE2E } from "../../support/index.ts";
const variants: Record<string, { env?: Record<string, string>; args?: string[]; wipe?: string[]; config?: any }> = JSON.parse(process.env.PROBE_VARIANTS ?? '{"base":{}}');
describe("probe", () => {
  const e2e = useE2E();
  it("timing", async () => {
    const ws = await e2e.workspace({});
    for (let round = 0; round < Number(process.env.PROBE_ROUNDS ?? 2); round++)
      for (const [name, v] of Object.entries(variants)) {
        for (const w of v.wipe ?? []) require("node:fs").rmSync(require("node:path").join(ws.root, w), { recursive: true, force: true });
        if (v.config) ws.updateConfig(v.config);
        e2e.model.script(...slashCommand("otto_repo"));
        const args = v.args ?? ["run", "--command", "otto-repo", "--", "list"];
        const r = await execa("/usr/bin/time", ["-f", "TIME %e %U %S", OPENCODE_BIN, ...args], { cwd: ws.project, env: { ...ws.env, ...v.env }, extendEnv: false, reject: false, stdin: "ignore" });
        const t = r.stderr.split("\n").find((l) => l.startsWith("TIME"));
        console.log("VARIANT", name, t, r.exitCode);
        e2e.model.reset();
      }
  }, 600_000);
});
