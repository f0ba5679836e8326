import { describe, expect, it } from "vitest";
import { mergeGenerated, parseTasks, serializeTasks } from "../../../src/spec/index.ts";
import { list, task } from "./task-builders.ts";

const done = (n: number, overrides = {}) => task(n, { status: "completed", description: `Finished work ${n}.`, ...overrides });

describe("mergeGenerated", () => {
  it("takes the generated list when nothing was completed", () => {
    const generated = list(task(1, { title: "New" }), task(2, { parallel_group: 2, depends_on: ["task-001"] }));
    const result = mergeGenerated(list(task(1), task(7)), generated);
    expect(result).toEqual({ list: generated, notes: [], problems: [] });
  });

  it("keeps a completed task the model returned unchanged, without notes", () => {
    const existing = list(done(1), task(2, { parallel_group: 2 }));
    const generated = list(done(1), task(2, { parallel_group: 2, description: "Refined." }));
    const result = mergeGenerated(existing, generated);
    expect(result.list).toEqual(generated);
    expect(result.notes).toEqual([]);
  });

  it("restores a completed task the model changed (status, content), keeping its place", () => {
    const existing = list(done(1, { files: ["a.ts"], extra: { attempts: "2" } }), task(2));
    const generated = list(
      task(2, { number: 1 }),
      task(1, { number: 2, title: "Rewritten", status: "pending", description: "Something else." }),
    );
    const result = mergeGenerated(existing, generated);
    expect(result.list.tasks).toEqual([task(2, { number: 1 }), { ...done(1, { files: ["a.ts"], extra: { attempts: "2" } }), number: 2 }]);
    expect(result.notes).toEqual([
      "task-001 is completed; the generated version changed its title, status, description, files, extra, so the completed task was restored.",
    ]);
  });

  it("re-inserts a completed task the model dropped, after its old predecessor, and renumbers", () => {
    const existing = list(done(1), done(2), task(3, { parallel_group: 2, depends_on: ["task-002"] }));
    const generated = list(
      done(1),
      task(3, { number: 2, parallel_group: 2, depends_on: ["task-002"] }),
      task(4, { number: 3, parallel_group: 2 }),
    );
    const result = mergeGenerated(existing, generated);
    expect(result.list.tasks.map((t) => [t.number, t.id, t.status])).toEqual([
      [1, "task-001", "completed"],
      [2, "task-002", "completed"],
      [3, "task-003", "pending"],
      [4, "task-004", "pending"],
    ]);
    expect(result.list.tasks[1]).toEqual(done(2));
    expect(result.notes).toEqual(["task-002 (completed) was missing from the generated tasks; it was re-inserted after task-001."]);
    expect(result.problems).toEqual([]);
  });

  it("re-inserts at the start when no earlier task survived, and points at a likely duplicate", () => {
    const existing = list(done(1, { title: "Create JWT middleware" }), task(2));
    const generated = list(task(1, { id: "jwt-1", title: "Create JWT Middleware" }), task(2, { number: 2 }));
    const result = mergeGenerated(existing, generated);
    expect(result.list.tasks.map((t) => t.id)).toEqual(["task-001", "jwt-1", "task-002"]);
    expect(result.notes).toEqual([
      "task-001 (completed) was missing from the generated tasks; it was re-inserted at the start. Generated jwt-1 has the same title ('Create JWT Middleware') and may duplicate it.",
    ]);
  });

  it("does not let the model mark a task completed that never ran", () => {
    const result = mergeGenerated(list(task(1)), list(task(1, { status: "completed" })));
    expect(result.list.tasks[0]?.status).toBe("pending");
    expect(result.notes).toEqual([
      "task-001 was marked completed by the generated list but had not been completed; it was set to pending.",
    ]);
  });

  it("reports, without fixing, problems the merge leaves", () => {
    // The completed task-002 is restored in group 2; the new task-001 now depends on it from group 1.
    const existing = list(done(2, { number: 1, parallel_group: 2 }));
    const generated = list(task(1, { depends_on: ["task-002"] }), task(2, { number: 2, parallel_group: 1 }));
    const result = mergeGenerated(existing, generated);
    expect(result.list.tasks.map((t) => [t.id, t.parallel_group, t.depends_on])).toEqual([
      ["task-001", 1, ["task-002"]],
      ["task-002", 2, []],
    ]);
    expect(result.problems.map((p) => p.message)).toEqual([
      expect.stringContaining("task-001 (Task 1) is in parallel_group 1 but depends on task-002 (Task 2) in parallel_group 2"),
    ]);
  });

  it("works on parsed files: a re-generated tasks.md keeps the completed work", () => {
    const existing = parseTasks(serializeTasks(list(done(1), task(2)))).tasks;
    const generated = parseTasks(
      "# Tasks\n\n## Task 1: Only new\n- **id**: task-005\n- **status**: pending\n- **parallel_group**: 2\n- **depends_on**: [task-001]\n- **description**: New.\n",
    ).tasks;
    const merged = mergeGenerated(existing, generated);
    expect(serializeTasks(merged.list)).toContain("## Task 1: Task number 1\n- **id**: task-001\n- **status**: completed");
    expect(merged.list.tasks.map((t) => [t.number, t.id])).toEqual([
      [1, "task-001"],
      [2, "task-005"],
    ]);
    expect(merged.problems).toEqual([]);
  });
});
