import { describe, expect, it } from "vitest";
import { blockedBy, phases, runnableTasks, summarizeTasks } from "../../../src/spec/index.ts";
import { list, task } from "./task-builders.ts";

const plan = list(
  task(1, { status: "completed" }),
  task(2, { status: "failed" }),
  task(5, { parallel_group: 3, depends_on: ["task-004"] }),
  task(3, { parallel_group: 2, depends_on: ["task-001"] }),
  task(4, { parallel_group: 2, depends_on: ["task-002"] }),
  task(6, { parallel_group: 3, depends_on: ["task-003"], status: "skipped" }),
  task(7, { parallel_group: 4, depends_on: ["task-006"] }),
);
const ids = (tasks: Array<{ id: string }>): string[] => tasks.map((t) => t.id);

describe("phases", () => {
  it("groups tasks by parallel_group in ascending order, keeping file order inside a group", () => {
    expect(phases(plan).map((p) => [p.group, ids(p.tasks)])).toEqual([
      [1, ["task-001", "task-002"]],
      [2, ["task-003", "task-004"]],
      [3, ["task-005", "task-006"]],
      [4, ["task-007"]],
    ]);
    expect(phases(list())).toEqual([]);
  });
});

describe("runnableTasks", () => {
  it("returns pending tasks whose dependencies are all completed", () => {
    expect(ids(runnableTasks(plan))).toEqual(["task-003"]);
  });

  it("does not treat skipped, failed or unknown dependencies as satisfied", () => {
    expect(
      ids(runnableTasks(list(task(1, { status: "skipped" }), task(2, { depends_on: ["task-001"] }), task(3, { depends_on: ["nope"] })))),
    ).toEqual([]);
  });

  it("returns every pending task without dependencies", () => {
    expect(ids(runnableTasks(list(task(1), task(2, { status: "running" }), task(3, { parallel_group: 2 }))))).toEqual([
      "task-001",
      "task-003",
    ]);
  });
});

describe("blockedBy", () => {
  it("returns the tasks that depend on failed ones, transitively", () => {
    expect(ids(blockedBy(plan, ["task-002"]))).toEqual(["task-005", "task-004"]);
    expect(ids(blockedBy(plan, new Set(["task-001"])))).toEqual(["task-003", "task-006", "task-007"]);
    expect(blockedBy(plan, [])).toEqual([]);
  });

  it("terminates on cycles", () => {
    const cyclic = list(
      task(1, { depends_on: ["task-002"] }),
      task(2, { depends_on: ["task-001"] }),
      task(3, { depends_on: ["task-002"] }),
    );
    expect(ids(blockedBy(cyclic, ["task-001"]))).toEqual(["task-002", "task-003"]);
  });
});

describe("summarizeTasks", () => {
  it("counts per status and per group", () => {
    const summary = summarizeTasks(plan);
    expect(summary.total).toBe(7);
    expect(summary.byStatus).toEqual({ pending: 4, running: 0, completed: 1, failed: 1, skipped: 1 });
    expect(summary.byGroup.map((g) => [g.group, g.total, g.byStatus.pending])).toEqual([
      [1, 2, 0],
      [2, 2, 2],
      [3, 2, 1],
      [4, 1, 1],
    ]);
    expect(summarizeTasks(list())).toEqual({
      total: 0,
      byStatus: { pending: 0, running: 0, completed: 0, failed: 0, skipped: 0 },
      byGroup: [],
    });
  });
});
