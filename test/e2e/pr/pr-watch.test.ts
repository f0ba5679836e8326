import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { OpencodeClient, Part, ToolPart } from "@opencode-ai/sdk";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, slashCommand, text, toolCall, useE2E, type Workspace, until, freePort } from "../../support/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";

const prsDir = (ws: Workspace) => path.join(ws.dirs.dataHome, "otto", "prs");
const lockFile = (ws: Workspace) => path.join(ws.dirs.dataHome, "otto", "watcher.json");
const readDoc = (ws: Workspace, key: string) => fs.readFileSync(path.join(prsDir(ws), `${key}.md`), "utf8");
const statusOf = (ws: Workspace, key: string) => /\nstatus: (\w+)\n/.exec(readDoc(ws, key))?.[1];

/** A PID that is certainly dead: a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
  return Number(child.stdout.trim());
}

/** Process group and session of a live process, from /proc/<pid>/stat (man 5 proc); undefined when gone or a zombie. */
function procIds(pid: number): { pgid: number; sid: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? undefined : { pgid: Number(fields[2]), sid: Number(fields[3]) };
  } catch {
    return undefined;
  }
}

/** Live pids in a process group. */
const groupMembers = (pgid: number): number[] =>
  fs
    .readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => procIds(pid)?.pgid === pgid);

/** Asks the otto agent in a new session; the scripted model calls the typed otto_pr_watch tool. Returns its output. */
async function ottoPrWatchTool(client: OpencodeClient, message: string): Promise<string> {
  const session = (await client.session.create({ body: { title: "watch tool" }, throwOnError: true })).data;
  await client.session.prompt({
    path: { id: session.id },
    body: { agent: "otto", parts: [{ type: "text", text: message }] },
    throwOnError: true,
  });
  const messages = (await client.session.messages({ path: { id: session.id }, throwOnError: true })).data;
  const tool = messages.flatMap((m) => m.parts).find((p: Part): p is ToolPart => p.type === "tool" && p.tool === "otto_pr_watch");
  if (!tool || tool.state.status !== "completed")
    throw new Error(`otto_pr_watch did not complete: ${JSON.stringify(tool?.state ?? messages.map((m) => m.parts))}`);
  return tool.state.output;
}

describe("otto_pr_watch through real OpenCode against fake GitHub and Azure DevOps", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();
  const script = () =>
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });

  it("watch once: green (one comment per SHA, webhook), failure recorded, merged stops polling; a second watcher is refused, a stale lock taken over", async () => {
    const f = await forges();
    const green = f.gh.state.addPr({ number: 1, title: "Add auth" });
    f.gh.state.setChecks(green, [{ name: "build" }, { name: "unit", status: "in_progress" }]);
    const red = f.gh.state.addPr({ number: 2 });
    f.gh.state.setChecks(red, [{ name: "unit", conclusion: "failure", log: "FAIL auth.test.ts" }]);
    const merged = f.ado.state.addPr({ id: 30 });
    f.ado.state.setChecks(merged, [{ name: "ci", status: "inProgress" }]);
    const ws = await e2e.workspace({ userOttoConfig: f.ottoConfig(), env: f.env });
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    // The first cycle goes through the typed tool, as an agent would call it (before script(): its
    // entries answer every request that offers otto_pr).
    const ask = "Run one PR watcher cycle now.";
    e2e.model.script(
      { label: "otto_pr_watch call", match: { lastUser: ask, lastRole: "user" }, reply: toolCall("otto_pr_watch", { action: "once" }) },
      { label: "otto_pr_watch echo", match: { lastUser: ask, lastRole: "tool" }, reply: (req) => text(req.toolResults[0]?.content ?? "") },
    );
    script();
    for (const url of [
      "https://github.com/octo/app/pull/1",
      "https://github.com/octo/app/pull/2",
      "https://dev.azure.com/contoso/payments/_git/app/pullrequest/30",
    ]) {
      expect(await ottoPr(client, `add ${url}`)).toContain("Tracking PR");
    }

    const polls = f.gh.calls.length;
    let once = await ottoPrWatchTool(client, ask);
    const asked = e2e.model.turns().find((r) => r.answeredBy === "otto_pr_watch call");
    expect(asked?.tools.find((t) => t.name === "otto_pr_watch")?.parameters).toMatchObject({
      properties: { action: { enum: ["start", "stop", "status", "once", "install"] } },
    });
    expect(f.gh.calls.length).toBeGreaterThan(polls);
    expect(once).toMatch(/Cycle \S+: 3 PR\(s\) in [\d.]+ s, 0 error\(s\)\./);
    expect(once).toContain("| github-octo-app-2 | failed | 0/1 passing (1 failing) | changed |");
    expect(statusOf(ws, "github-octo-app-1")).toBe("watching");
    expect(readDoc(ws, "github-octo-app-2")).toContain("### Failed Checks\n- `unit`: unit failed");

    f.gh.state.setChecks(green, [{ name: "build" }, { name: "unit" }]);
    f.ado.state.complete(merged);
    once = await ottoPr(client, "watch once");
    expect(once).toContain("| github-octo-app-1 | green | 2/2 passing | changed |");
    expect(once).toContain("| ado-contoso-30 | merged |");
    expect(f.gh.state.comments.map((c) => c.body)).toEqual([expect.stringContaining("✅ otto: all checks pass on")]);
    // PR 2's fix flow cannot start without models.primary and asks for a person (human_needed) first.
    const hooks = await until("the webhook", () =>
      f.hooks.calls.find((c) => c.path === "/hook" && (c.body as { event?: string }).event === "pr_green"),
    );
    expect(f.hooks.calls.map((c) => (c.body as { event?: string }).event)).toContain("human_needed");
    expect(hooks.body).toMatchObject({ source: "otto", event: "pr_green", url: "https://github.com/octo/app/pull/1" });

    const adoCalls = f.ado.calls.length;
    once = await ottoPr(client, "watch once");
    expect(once).toContain("| ado-contoso-30 | merged | 0/1 passing (1 pending) | not polled (closed) |");
    expect(f.ado.calls.length).toBe(adoCalls);
    expect(f.gh.state.comments).toHaveLength(1);
    expect(readDoc(ws, "ado-contoso-30")).toMatch(/- \S+ watching → merged; polling stopped/);

    // Another live watcher holds the lock: refused.
    const now = new Date().toISOString();
    const holder = {
      pid: process.pid,
      host: os.hostname(),
      token: "other",
      mode: "foreground",
      started: now,
      heartbeat: now,
      interval_ms: 120_000,
    };
    fs.writeFileSync(lockFile(ws), JSON.stringify(holder));
    expect(await ottoPr(client, "watch once")).toMatch(
      new RegExp(`^Error: A PR watcher is already running \\(pid ${process.pid}, foreground`),
    );
    expect(await ottoPr(client, "watch status")).toContain(`PR watcher: running in pid ${process.pid}`);
    // Its process died: the stale lock is taken over.
    fs.writeFileSync(lockFile(ws), JSON.stringify({ ...holder, pid: deadPid() }));
    expect(await ottoPr(client, "watch once")).toMatch(/^Cycle /);
    const record = JSON.parse(fs.readFileSync(lockFile(ws), "utf8")) as {
      mode: string;
      stopped?: string;
      last_cycle?: { results: unknown[] };
    };
    expect(record).toMatchObject({
      mode: "once",
      stopped: expect.any(String) as unknown,
      last_cycle: { results: expect.any(Array) as unknown },
    });
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("keeps cycling through 500s, timeouts and secondary rate limits on 30% of requests; one broken PR does not stop the others", async () => {
    const f = await forges();
    // CI still running everywhere: this test is about polling, not about comments.
    for (let n = 1; n <= 4; n++) f.gh.state.setChecks(f.gh.state.addPr({ number: n }), [{ name: "build", status: "in_progress" }]);
    f.ado.state.setChecks(f.ado.state.addPr({ id: 40 }), [{ name: "ci", status: "inProgress" }]);
    const ws = await e2e.workspace({ userOttoConfig: f.ottoConfig(), env: f.env });
    const { client } = await e2e.serve(ws);
    script();
    for (let n = 1; n <= 4; n++) await ottoPr(client, `add https://github.com/octo/app/pull/${n}`);
    await ottoPr(client, "add 40 --provider ado");
    // PR 3 disappears (404 on every poll); everything else fails 30% of the time.
    f.gh.state.prs.find((p) => p.number === 3)!.number = 303;
    f.gh.faults({ rate: 0.3, kinds: ["500", "timeout", "rate_limit"], seed: 11 });
    f.ado.faults({ rate: 0.3, kinds: ["500", "timeout", "rate_limit"], seed: 12 });
    const once = await ottoPr(client, "watch once");
    expect(once).toMatch(/5 PR\(s\) in [\d.]+ s, 1 error\(s\)\./);
    expect(once).toMatch(
      /\| github-octo-app-3 \| watching \| 0\/1 passing \(1 pending\) \| poll failed: GitHub has no pull request octo\/app#3/,
    );
    for (const key of ["github-octo-app-1", "github-octo-app-2", "github-octo-app-4", "ado-contoso-40"]) {
      const doc = readDoc(ws, key);
      expect(doc, key).toMatch(/\nlast_checked: '/);
      expect(doc, key).toMatch(/\nerrors: 0\n/);
    }
    const faults = [...f.gh.calls, ...f.ado.calls].filter((c) => c.fault);
    expect(new Set(faults.map((c) => c.fault))).toEqual(new Set(["500", "timeout", "rate_limit"]));
    // No state lost: every document parses (list shows all six) and no temp file is left.
    const list = await ottoPr(client, "list");
    expect(list).toContain("5 tracked PR(s).");
    expect(list).toContain("| 3 | github | octo/app | feature/3 | watching (poll errors) |");
    expect(fs.readdirSync(prsDir(ws)).filter((n) => n.includes(".tmp"))).toEqual([]);
    expect(readDoc(ws, "github-octo-app-3")).toMatch(/errors: 1\n/);
  });
});

describe("otto_pr_watch start in opencode run and opencode serve (processes of its own)", () => {
  const e2e = useE2E();
  const forges = useForges();
  const script = () =>
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });

  it("watch start: in-process under serve, refused in opencode run, --detach runs a background serve; status and stop", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 7 });
    f.gh.state.setChecks(pr, [{ name: "build", status: "in_progress" }]);
    const port = await freePort();
    const ws = await e2e.workspace({ userOttoConfig: f.ottoConfig({ server: { poll_interval: "1s", port } }), env: f.env });
    script();
    const headless = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "watch", "start"]);
    expect(headless.stdout).toContain("`opencode run` exits as soon as this command ends");
    expect(headless.stdout).toContain("/otto-pr watch start --detach");

    const serve = await e2e.serve(ws);
    const { client } = serve;
    await ottoPr(client, "add https://github.com/octo/app/pull/7");
    expect(await ottoPr(client, "watch start")).toMatch(
      /^PR watcher running in this OpenCode process \(pid \d+\), every 1s; first cycle now\./,
    );
    // The first cycle runs at once, the next ones on node-cron's schedule (inside Bun).
    const checked = () => /\nlast_checked: '([^']+)'/.exec(readDoc(ws, "github-octo-app-7"))?.[1];
    const first = await until("a first cycle in the serve process", checked);
    await until("a scheduled cycle", () => (checked() ?? first) > first);
    expect(await ottoPr(client, "watch status")).toMatch(/PR watcher: running in this OpenCode process \(foreground, every 1s/);
    expect(await ottoPr(client, "watch start --detach")).toMatch(/^Error: A PR watcher is already running/);
    expect(await ottoPr(client, "watch stop")).toMatch(/^Stopped the PR watcher of this OpenCode process/);

    const detached = await ottoPr(client, "watch start --detach");
    const authFile = path.join(ws.dirs.dataHome, "otto", "watch-server.env");
    expect(detached).toMatch(
      new RegExp(
        `^Started the PR watcher in the background: opencode serve \\(pid (\\d+)\\) on 127.0.0.1:${port}, its password is in ${authFile} \\(user opencode\\), polling every 1s\\.`,
      ),
    );
    const pid = Number(/pid (\d+)/.exec(detached)?.[1]);
    expect(fs.readFileSync(path.join(ws.dirs.dataHome, "otto", "watcher.pid"), "utf8").trim()).toBe(String(pid));
    // No password was configured: otto generated one, keeps it 0600, and the background server refuses requests without it.
    expect(fs.statSync(authFile).mode & 0o777).toBe(0o600);
    const password = /^OPENCODE_SERVER_PASSWORD=(.+)$/m.exec(fs.readFileSync(authFile, "utf8"))?.[1] ?? "";
    expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const session = (authorization?: string) =>
      fetch(`http://127.0.0.1:${port}/session`, {
        headers: { "x-opencode-directory": ws.project, ...(authorization ? { authorization } : {}) },
      }).then(async (r) => (await r.body?.cancel(), r.status));
    expect(await session()).toBe(401);
    expect(await session(`Basic ${Buffer.from(`opencode:${password}`).toString("base64")}`)).toBe(200);
    // The background watcher polls on its own: it sees the PR go green and comments.
    f.gh.state.setChecks(pr, [{ name: "build" }]);
    await until("the background watcher to see green", () => statusOf(ws, "github-octo-app-7") === "green");
    expect(f.gh.state.comments).toHaveLength(1);
    // From here the PR is idle: once a cycle has read otto's own comment, each cycle is the
    // repository's PR list alone, answered 304 (docs/pr.md, what a watcher cycle costs).
    const cycles = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const at = checked() ?? "";
        await until("a cycle of the background watcher", () => (checked() ?? "") > at);
      }
    };
    await cycles(2);
    const idleFrom = f.gh.calls.length;
    await cycles(2);
    const idle = f.gh.calls.slice(idleFrom).map((c) => `${c.method} ${c.path} ${c.status}`);
    expect(idle.length).toBeGreaterThan(0);
    expect(new Set(idle)).toEqual(new Set(["GET /repos/octo/app/pulls 304"]));
    const status = await ottoPr(client, "watch status");
    expect(status).toContain(`PR watcher: running in pid ${pid}`);
    expect(status).toMatch(/\(detached, every 1s/);
    expect(status).toContain("| github-octo-app-7 | green | success |");
    expect(fs.readFileSync(path.join(ws.dirs.dataHome, "otto", "logs", "otto-watch.log"), "utf8")).toContain("opencode server listening");

    // It survives the terminal: its own session and process group, not the starter's, so closing
    // the terminal (SIGHUP to the starter's group) and killing that group leave it running.
    // (Only the group is killed here: the harness would also kill it through its inherited test token.)
    expect(procIds(pid)).toEqual({ pgid: pid, sid: pid });
    expect(procIds(serve.process.pgid)?.sid).not.toBe(pid);
    process.kill(-serve.process.pgid, "SIGHUP");
    process.kill(-serve.process.pgid, "SIGKILL");
    await until("the starting OpenCode's process group to be gone", () => groupMembers(serve.process.pgid).length === 0);
    const starterGone = new Date().toISOString();
    const polled = f.gh.calls.length;
    // Still polling: new requests reach the fake GitHub and the document is checked again.
    await until("a poll by the watcher after its starter died", () => (checked() ?? "") > starterGone && f.gh.calls.length > polled);
    expect(procIds(pid)).toEqual({ pgid: pid, sid: pid });

    // Another OpenCode (a headless run) stops it through the PID file.
    const stop = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "watch", "stop"]);
    expect(stop.stdout).toContain(`Stopped the background PR watcher (pid ${pid}).`);
    expect(procIds(pid)).toBeUndefined();
    expect(fs.existsSync(path.join(ws.dirs.dataHome, "otto", "watcher.pid"))).toBe(false);
  }, 300_000);
});
