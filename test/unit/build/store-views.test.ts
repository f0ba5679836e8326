import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BuildStore, specListJson, statusVerb, stopVerb, taskListJson, type BuildState } from "../../../src/build/index.ts";
import { tasksMd, tempRepoDir } from "./fixtures.ts";
import { execFileSync } from "node:child_process";

function running(name: string, sessionID: string): BuildState {
  return { target: { kind: "spec", name }, status: "running", phase: "build", iteration: 2, maxIterations: 50, stagnantTurns: 0, sessionID, pid: process.pid, updatedAt: "2026-11-21T10:00:00.000Z" };
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
    expect((await statusVerb(root)).output).toContain("| spec demo | running | build | 2/50 | - | ses_1 |  |");
    // A loop whose process is gone is not shown as running.
    await store.write({ ...running("demo", "ses_1"), pid: 2 ** 22 + 1 });
    expect((await statusVerb(root)).output).toContain("| spec demo | stopped (process gone) |");
  });

  it("a corrupt state file counts as none", async () => {
    const root = repo();
    fs.mkdirSync(path.join(root, ".otto/build"), { recursive: true });
    fs.writeFileSync(path.join(root, ".otto/build/demo.json"), "{ half");
    expect(await new BuildStore(root).read({ kind: "spec", name: "demo" })).toBeUndefined();
  });
});

describe("machine-readable views", () => {
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
    });
  });

  it("/otto-spec task list --json: the tasks with status, state and sessions", () => {
    const root = repo();
    const view = JSON.parse(taskListJson(root, "demo", [])) as { state: string; tasks: Array<{ id: string; status: string }> };
    expect(view.state).toBe("ready");
    expect(view.tasks.map((t) => `${t.id} ${t.status}`)).toEqual(["task-001 completed", "task-002 pending", "task-003 pending"]);
  });
});
