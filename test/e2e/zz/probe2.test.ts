import fs from "node:fs";
import { describe, it } from "vitest";
import { execa } from "execa";
import { OPENCODE_BIN, slashCommand, useE2E } from "../../support/index.ts";
const ticks = (pid: number) => { const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" "); return (Number(f[11]) + Number(f[12])) / 100; };
describe("probe", () => {
  const e2e = useE2E();
  it("timing", async () => {
    const ws = await e2e.workspace({});
    const ws2 = await e2e.workspace({});
    const serve = await e2e.serve(ws);
    const pid = serve.process.pgid;
    for (let round = 0; round < 3; round++) {
      for (const target of [ws, ws2]) {
        e2e.model.script(...slashCommand("otto_repo"));
        const before = ticks(pid);
        const t = Date.now();
        const r = await execa("/usr/bin/time", ["-f", "TIME %e %U %S", OPENCODE_BIN, "run", "--attach", serve.url, "--dir", target.project, "--command", "otto-repo", "--", "list"], { cwd: target.project, env: { ...target.env }, extendEnv: false, reject: false, stdin: "ignore" });
        const line = r.stderr.split("\n").find((l) => l.startsWith("TIME"));
        console.log("ATTACH", target === ws ? "same" : "other", line, "server", (ticks(pid) - before).toFixed(2), Date.now() - t, r.exitCode, r.stdout.slice(0, 60).replace(/\n/g, " "));
        e2e.model.reset();
      }
    }
    for (let round = 0; round < 3; round++) {
      e2e.model.script(...slashCommand("otto_repo"));
      const before = ticks(pid);
      const cpu0 = process.cpuUsage();
      const t = Date.now();
      const s = await serve.client.session.create({ query: { directory: ws2.project } });
      const res = await serve.client.session.command({ path: { id: s.data!.id }, query: { directory: ws2.project }, body: { command: "otto-repo", arguments: "list" } });
      const cpu = process.cpuUsage(cpu0);
      console.log("SDK server", (ticks(pid) - before).toFixed(2), "node", ((cpu.user + cpu.system) / 1e6).toFixed(2), Date.now() - t, JSON.stringify(res.data).slice(0, 100));
      e2e.model.reset();
    }
  }, 600_000);
});
