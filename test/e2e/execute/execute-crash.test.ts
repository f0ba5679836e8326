import { describe, expect, it } from "vitest";
import { assertPluginLoaded, hang, survivors, useE2E, until } from "../../support/index.ts";
import { attempts, callExecute, execModel } from "../execute/exec-model.ts";
import { executeTool } from "../execute/drive.ts";
import { specFiles, tasksMd, taskIdOf } from "../execute/kinds.ts";

const SLUG = "greeting";
const SPEC = `.otto/specs/${SLUG}`;
const statusOf = (tasks: string, id: string) => new RegExp(`- \\*\\*id\\*\\*: ${id}\\n- \\*\\*status\\*\\*: (\\w+)`).exec(tasks)?.[1];

describe("/otto-spec execute survives a crash", () => {
  const e2e = useE2E();

  it("OpenCode killed with SIGKILL in the middle of a phase: the re-run completes without re-running completed tasks or committing a phase twice", async () => {
    const ws = await e2e.workspace({
      files: specFiles(
        tasksMd([
          ["task-001", "pending", 1, [], "First"],
          ["task-002", "pending", 2, ["task-001"], "Slow second"],
          ["task-003", "pending", 2, ["task-001"], "Quick second"],
        ]),
      ),
      ottoConfig: {
        models: { primary: "mock/m1", secondary: "mock/m2" },
        spec: { task_briefing: false, external_assumptions: false, domain_hardening: false },
      },
    });
    let alive = true;
    e2e.model.script(
      ...callExecute(),
      execModel(ws.project, (kind, req) =>
        kind === "execute-task" && alive && taskIdOf(req.lastUser) === "task-002" && req.lastRole === "user" ? hang() : undefined,
      ),
    );
    const serve = await e2e.serve(ws);
    await assertPluginLoaded(serve.client);
    const crashed = executeTool(serve.client).catch((error: unknown) => error);

    // Phase 1 is committed; in phase 2, task-003 is completed while task-002 is still running.
    await e2e.model.waitForRequest((r) => attempts([r], "task-002").length === 1, 90_000);
    await until("task-003 completed", () => statusOf(ws.readFile(`${SPEC}/tasks.md`), "task-003") === "completed");
    expect((await ws.repo.log()).map((c) => c.subject)).toEqual([`otto(${SLUG}): phase 1: task-001`, "Initial commit"]);
    // The sessions of the crashed run: the invoking one and its children (task-002's executor at least).
    const beforeCrash = (await serve.client.session.list({ throwOnError: true })).data;
    const orphans = beforeCrash.filter((s) => s.parentID).map((s) => s.id);
    expect(orphans.length).toBeGreaterThan(0);
    process.kill(-serve.process.pgid, "SIGKILL");
    for (const pid of survivors(serve.process)) process.kill(pid, "SIGKILL");
    await serve.close();
    expect(await crashed).toBeInstanceOf(Error);
    const atCrash = ws.readFile(`${SPEC}/tasks.md`);
    expect(["task-001", "task-002", "task-003"].map((id) => statusOf(atCrash, id))).toEqual(["completed", "running", "completed"]);

    // The re-run, headless this time.
    alive = false;
    const mark = e2e.model.requests.length;
    const rerun = await e2e.run(ws, ["run", "--agent", "otto", "Execute the spec."], { timeoutMs: 120_000 });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain("Recovered from an earlier run:\n- task-002 → pending: was running when an earlier run stopped");
    expect(rerun.stdout).toContain("Progress: 3/3 completed");
    expect(attempts(e2e.model.requests.slice(mark)).map((r) => taskIdOf(r.lastUser))).toEqual(["task-002"]);
    const subjects = (await ws.repo.log()).map((c) => c.subject);
    expect(subjects).toEqual([
      `otto(${SLUG}): align documentation`,
      `otto(${SLUG}): phase 2: task-002, task-003`,
      `otto(${SLUG}): phase 1: task-001`,
      "Initial commit",
    ]);
    const bodies = await ws.repo.git(["log", "--format=%B"]);
    expect(bodies.match(new RegExp(`^Otto-Phase: ${SLUG}/1$`, "gm"))).toHaveLength(1);
    expect(bodies.match(new RegExp(`^Otto-Phase: ${SLUG}/2$`, "gm"))).toHaveLength(1);
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("");

    // The re-run deleted the child sessions the killed run left behind, and said so.
    const after = (await (await e2e.serve(ws)).client.session.list({ throwOnError: true })).data;
    expect(after.filter((s) => orphans.includes(s.id))).toEqual([]);
    expect(after.filter((s) => s.parentID)).toEqual([]);
    expect(after.map((s) => s.id)).toContain(beforeCrash.find((s) => !s.parentID)?.id);
    const cleaned = /Note: cleaned up (\d+) sessions? left by the crashed run\./.exec(rerun.stdout);
    expect(Number(cleaned?.[1])).toBeGreaterThan(0);
  }, 300_000);
});
