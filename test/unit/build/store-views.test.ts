import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BuildStore, specListJson, statusVerb, stopVerb, taskListJson, type BuildState } from "../../../src/build/index.ts";
import { resolveTargets } from "../../../src/build/targets.ts";
import { tasksMd, tempRepoDir } from "./fixtures.ts";
import { execFileSync } from "node:child_process";

/** Above Linux's default pid_max (2^22): no process has it. */
const DEAD_PID = 2 ** 22 + 1;

function running(name: string, sessionID: string): BuildState {
  return {
    target: { kind: "spec", name },
    status: "running",
    phase: "build",
    iteration: 2,
    maxIterations: 50,
    stagnantTurns: 0,
    sessionID,
    pid: process.pid,
    updatedAt: "2026-11-21T10:00:00.000Z",
  };
}

function repo(): string {
  const root = tempRepoDir();
  execFileSync("git", ["init", "-q"], { cwd: root });
  fs.mkdirSync(path.join(root, ".otto/specs/demo"), { recursive: true });
  fs.writeFileSync(path.join(root, ".otto/specs/demo/tasks.md"), tasksMd(3, 1));
  fs.mkdirSync(path.join(root, ".otto/specs/draft"), { recursive: true });
  fs.writeFileSync(path.join(root, ".otto/specs/draft/requirements.md"), "# R\n");
  return root;
}

describe("BuildStore", () => {
  it("writes states that ignore themselves in git, lists them, and carries stop requests", async () => {
    const root = repo();
    const store = new BuildStore(root);
    await store.write(running("demo", "ses_1"));
    expect(fs.readFileSync(path.join(root, ".otto/build/.gitignore"), "utf8")).toBe("*\n");
    expect(await store.list()).toEqual([running("demo", "ses_1")]);
    expect(await store.stopRequested({ kind: "spec", name: "demo" })).toBe(false);

    expect((await stopVerb(root, {})).output).toContain("Asked demo to stop");
    expect(await store.stopRequested({ kind: "spec", name: "demo" })).toBe(true);
    await store.clearStop({ kind: "spec", name: "demo" });
    expect(await store.stopRequested({ kind: "spec", name: "demo" })).toBe(false);
    expect((await statusVerb(root)).output).toContain("| spec demo | running | build | 2/50 | - | - | ses_1 |  |");
    // A loop whose process is gone is not shown as running.
    await store.write({ ...running("demo", "ses_1"), pid: DEAD_PID });
    expect((await statusVerb(root)).output).toContain("| spec demo | stopped (process gone) |");
  });

  it("a corrupt state file counts as none", async () => {
    const root = repo();
    fs.mkdirSync(path.join(root, ".otto/build"), { recursive: true });
    fs.writeFileSync(path.join(root, ".otto/build/demo.json"), "{ half");
    expect(await new BuildStore(root).read({ kind: "spec", name: "demo" })).toBeUndefined();
  });
});

describe("/otto-build status", () => {
  it("renders every loop from its state file, newest first; a loop whose process is gone is not counted as running", async () => {
    const root = repo();
    expect(await statusVerb(root)).toEqual({
      title: "otto build: no loops",
      output: "No build loops yet.\n\nNext step: /otto-build --spec <slug>",
    });
    const dir = path.join(root, ".otto/build");
    fs.mkdirSync(dir, { recursive: true });
    const write = (key: string, state: object) => fs.writeFileSync(path.join(dir, `${key}.json`), JSON.stringify(state));
    write("demo", { ...running("demo", "ses_1"), progress: { done: 1, total: 3 }, updatedAt: "2026-11-21T10:03:00.000Z" });
    write("openspec-add-auth", {
      target: { kind: "openspec", name: "add-auth" },
      status: "stagnated",
      phase: "build",
      iteration: 3,
      maxIterations: 50,
      stagnantTurns: 3,
      sessionID: "ses_2",
      progress: { done: 0, total: 2 },
      spend: { requests: 3, input: 3000, output: 600, usd: 0.018 },
      note: "stopped: nothing changed (no task status, no file) for several turns in a row, after 3 turn(s)",
      updatedAt: "2026-11-21T10:02:00.000Z",
    });
    write("crashed", { ...running("crashed", "ses_3"), pid: DEAD_PID, updatedAt: "2026-11-21T10:01:00.000Z" });
    expect(await statusVerb(root)).toEqual({
      title: "otto build: 1 running",
      output: [
        "## otto build loops",
        "",
        "| target | status | phase | turns | tasks done | spent | builder session | note |",
        "|---|---|---|---|---|---|---|---|",
        "| spec demo | running | build | 2/50 | 1/3 | - | ses_1 |  |",
        "| openspec add-auth | stagnated | build | 3/50 | 0/2 | 3.60k tokens, $0.02 | ses_2 | stopped: nothing changed (no task status, no file) for several turns in a row, after 3 turn(s) |",
        "| spec crashed | stopped (process gone) | build | 2/50 | - | - | ses_3 |  |",
      ].join("\n"),
    });
    // Nothing to ask of a dead loop: stop only reaches live ones.
    expect((await stopVerb(root, {})).output).toContain("Asked demo to stop;");
    expect(await new BuildStore(root).stopRequested({ kind: "spec", name: "crashed" })).toBe(false);
  });
});

describe("machine-readable views", () => {
  it("a loop marked running whose process is gone shows as stopped", () => {
    const root = repo();
    const view = JSON.parse(taskListJson(root, "demo", [{ ...running("demo", "ses_9"), pid: DEAD_PID }])) as { sessions: unknown[] };
    expect(view.sessions).toEqual([{ sessionID: "ses_9", status: "stopped", iteration: 2 }]);
  });

  it("/otto-spec list --json: progress, state and the sessions building each spec", () => {
    const root = repo();
    expect(JSON.parse(specListJson(root, [running("demo", "ses_1")]))).toEqual({
      specs: [
        {
          slug: "demo",
          artifacts: { requirements: false, research: false, design: false, tasks: true, questions: false },
          progress: { done: 1, total: 3, percent: 33 },
          state: "ready",
          sessions: [{ sessionID: "ses_1", status: "running", iteration: 2 }],
        },
        {
          slug: "draft",
          artifacts: { requirements: true, research: false, design: false, tasks: false, questions: false },
          progress: { done: 0, total: 0, percent: 0 },
          state: "no_tasks",
          sessions: [],
        },
      ],
      openspec: [],
    });
  });

  it("/otto-spec list --json and /otto-build --all include the active OpenSpec changes (not the archived ones)", () => {
    const root = repo();
    const change = (dir: string, text: string) => {
      fs.mkdirSync(path.join(root, "openspec/changes", dir), { recursive: true });
      fs.writeFileSync(path.join(root, "openspec/changes", dir, "tasks.md"), text);
    };
    change("add-auth", "## 1. Auth\n- [x] 1.1 Route\n- [ ] 1.2 Tests\n");
    change("done-one", "- [x] 1.1 Everything\n");
    change("archive/2026-01-01-old", "- [ ] 1.1 Old\n");
    const view = JSON.parse(specListJson(root, [{ ...running("add-auth", "ses_7"), target: { kind: "openspec", name: "add-auth" } }])) as {
      openspec: unknown[];
    };
    expect(view.openspec).toEqual([
      {
        change: "add-auth",
        progress: { done: 1, total: 2, percent: 50 },
        state: "ready",
        sessions: [{ sessionID: "ses_7", status: "running", iteration: 2 }],
      },
      { change: "done-one", progress: { done: 1, total: 1, percent: 100 }, state: "all_done", sessions: [] },
    ]);
    expect(resolveTargets(root, { all: true })).toEqual([
      { kind: "spec", name: "demo" },
      { kind: "openspec", name: "add-auth" },
    ]);
  });

  it("/otto-spec task list --json: the tasks with status, state and sessions", () => {
    const root = repo();
    const view = JSON.parse(taskListJson(root, "demo", [])) as { state: string; tasks: Array<{ id: string; status: string }> };
    expect(view.state).toBe("ready");
    expect(view.tasks.map((t) => `${t.id} ${t.status}`)).toEqual(["task-001 completed", "task-002 pending", "task-003 pending"]);
  });
});
