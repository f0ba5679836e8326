import fs from "node:fs";
import { createOpencodeClient } from "@opencode-ai/sdk";
import { describe, it } from "vitest";
import { slashCommand, text, useE2E } from "../../support/index.ts";

const cpu = (pid: number): number => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").slice(fs.readFileSync(`/proc/${pid}/stat`, "utf8").lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
};
const self = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

describe("probe", () => {
  const e2e = useE2E({}, { shareServer: true });
  for (let i = 0; i < 6; i++)
    it(`round ${i}`, async () => {
      if (i === 0) { const w0 = await e2e.workspace({ plugin: false }); fs.writeFileSync("/tmp/probe-pid", String((await e2e.serve(w0)).process.pgid)); }
      let s0 = self();
      const ws = await e2e.workspace({ plugin: false });
      const wsCost = self() - s0;
      const pid = Number(fs.readFileSync("/tmp/probe-pid", "utf8"));
      let c = cpu(pid);
      const view = await e2e.serve(ws);
      console.log(`round ${i} serveView: server ${(cpu(pid) - c).toFixed(2)}`); c = cpu(pid);
      const lap = (label: string) => { const n = cpu(pid); const t = self(); console.log(`round ${i} ${label}: server ${(n - c).toFixed(2)} worker ${(t - s0).toFixed(2)}`); c = n; s0 = t; };
      console.log(`round ${i} workspace: worker ${wsCost.toFixed(2)}`);
      s0 = self();
      const c1 = createOpencodeClient({ baseUrl: view.url, directory: ws.project });
      await c1.config.get({ throwOnError: true });
      lap("boot(view+config)");
      e2e.model.script({ match: { lastUser: "hello" }, reply: text("hi") });
      await e2e.run(ws, ["run", "hello"]);
      lap("prompt hello");
      e2e.model.script(...slashCommand("otto_config"));
      
      lap("otto-config show");
      e2e.model.script({ match: { lastUser: "hello2" }, reply: text("hi") });
      await e2e.run(ws, ["run", "hello2"]);
      lap("prompt hello2");
      await c1.instance.dispose({ throwOnError: true });
      lap("dispose");
    });
});
