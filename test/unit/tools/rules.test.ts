import fs from "node:fs";
import path from "node:path";
import type { ToolContext } from "@opencode-ai/plugin";
import { describe, expect, it } from "vitest";
import { EventBus, silentLogger, type Env } from "../../../src/core/index.ts";
import { KnownSecrets } from "../../../src/core/secrets.ts";
import type { Runtime } from "../../../src/runtime.ts";
import { rulesCommand } from "../../../src/tools/rules.ts";
import { gitEnv } from "../../support/git.ts";
import { clone, tempDir } from "../repo/fixtures.ts";

function box() {
  const home = tempDir("otto-home-");
  const env: Env = {
    ...gitEnv(),
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
  };
  return {
    env,
    async run(args: string, cwd: string): Promise<string> {
      const runtime = {
        client: {} as Runtime["client"],
        directory: cwd,
        worktree: cwd,
        events: new EventBus(),
        log: silentLogger,
        env,
        once: new Set<string>(),
        secrets: new KnownSecrets(),
        sessions: {} as Runtime["sessions"],
        guard: {} as Runtime["guard"],
        meter: {} as Runtime["meter"],
      };
      const ctx = {
        sessionID: "s",
        messageID: "m",
        agent: "otto",
        directory: cwd,
        worktree: cwd,
        abort: new AbortController().signal,
        metadata: () => undefined,
        ask: () => Promise.resolve(),
      } satisfies ToolContext;
      const result = await rulesCommand(runtime).execute({ args }, ctx);
      return typeof result === "string" ? result : result.output;
    },
  };
}

describe("/otto-rules", () => {
  it("add writes an accepted rule to .otto/rules.md; reject and accept change its status; list --json shows both files apart", async () => {
    const b = box();
    const app = await clone();
    const added = await b.run("add \"Use logger.info, not console.log\" --scope 'src/**' --scope 'lib/**'", app.dir);
    const id = /Accepted rule (r-[0-9a-f]{6})/.exec(added)?.[1] ?? "";
    expect(id).not.toBe("");
    expect(added).toContain("Scope: src/**, lib/**.");
    const file = fs.readFileSync(path.join(app.dir, ".otto", "rules.md"), "utf8");
    expect(file).toContain(`## ${id}\n\nUse logger.info, not console.log\n\n- status: accepted\n- scope: \`src/**\`, \`lib/**\``);
    expect(await b.run(`reject ${id} --reason "we log with console in scripts"`, app.dir)).toContain(`Rejected rule ${id}`);
    expect(fs.readFileSync(path.join(app.dir, ".otto", "rules.md"), "utf8")).toContain("- reason: we log with console in scripts");
    expect(await b.run(`accept ${id}`, app.dir)).toContain(`Accepted rule ${id}`);
    await b.run('add "Prefer early returns." --user', app.dir);

    const listed = JSON.parse(await b.run("list --json", app.dir)) as {
      repository: { rules: Array<{ id: string; status: string; applied: number; sources: Array<{ kind: string }> }> };
      user: { file: string; rules: Array<{ text: string; status: string }> };
    };
    expect(listed.repository.rules.map((r) => [r.id, r.status, r.applied, r.sources[0]?.kind])).toEqual([[id, "accepted", 0, "added"]]);
    expect(listed.user.rules.map((r) => [r.text, r.status])).toEqual([["Prefer early returns.", "accepted"]]);
    expect(listed.user.file).toBe(path.join(b.env.HOME ?? "", ".config", "otto", "rules.md"));
    const text = await b.run("list", app.dir);
    expect(text).toContain("**Repository rules**");
    expect(text).toContain("**Your rules**");
  });

  it("refuses an unknown id, naming /otto-rules list, and rule text with a code fence", async () => {
    const b = box();
    const app = await clone();
    expect(await b.run("accept r-ffffff", app.dir)).toMatch(/No rule "r-ffffff"[\s\S]*\/otto-rules list/);
    expect(await b.run('add "Do ```this``` now"', app.dir)).toMatch(/cannot be added: a rule's text may not contain a code fence/);
  });
});
