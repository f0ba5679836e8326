import { describe, expect, it } from "vitest";
import { validateTasks, type Task, type TaskList } from "../../../src/spec/index.ts";
import { list, task } from "./task-builders.ts";

const messages = (l: TaskList): string[] => validateTasks(l).map((p) => p.message);

describe("validateTasks", () => {
  it("accepts a well-formed plan", () => {
    expect(
      messages(
        list(
          task(1),
          task(2),
          task(3, { parallel_group: 2, depends_on: ["task-001", "task-002"] }),
          task(4, { parallel_group: 3, depends_on: ["task-003"] }),
        ),
      ),
    ).toEqual([]);
  });

  it("requires unique ids", () => {
    expect(messages(list(task(1), task(2, { id: "task-001" }), task(3, { id: "task-001" })))).toEqual([
      "Id 'task-001' is used by Task 1, Task 2 and Task 3; give each task its own id.",
    ]);
  });

  it.each(["task 1", "task-001,", "[task-1]", "1-task", ""])("rejects the malformed id %j", (id) => {
    const problems = messages(list(task(1, { id })));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      id === ""
        ? /^Task 1 has no id; give it one like 'task-001'\.$/
        : /^Task 1 has id '.*', which is not a valid id; .* \(e\.g\. 'task-001'\)\.$/,
    );
  });

  it.each(["task-001", "T1", "auth.login_2"])("accepts the id %j", (id) => {
    expect(messages(list(task(1, { id })))).toEqual([]);
  });

  it("requires dependencies to name known tasks", () => {
    expect(messages(list(task(1), task(2, { parallel_group: 2, depends_on: ["task-009"] })))).toEqual([
      "task-002 (Task 2) depends on 'task-009', which is not the id of any task in this file; use one of the existing ids (task-001, task-002) or remove it.",
    ]);
  });

  it("rejects self-dependency", () => {
    expect(messages(list(task(1, { depends_on: ["task-001"] })))).toEqual([
      "task-001 (Task 1) depends on itself; remove 'task-001' from its depends_on.",
    ]);
  });

  it("reports cycles with their path", () => {
    const cyclic = list(task(1, { depends_on: ["task-003"] }), task(2), task(3, { depends_on: ["task-001"] }));
    const problems = messages(cyclic);
    expect(problems).toContain(
      "Dependency cycle: task-001 → task-003 → task-001 (each depends on the next); remove one of these dependencies.",
    );
    expect(problems.filter((m) => m.startsWith("Dependency cycle"))).toHaveLength(1);
  });

  it("reports a longer cycle once", () => {
    const cyclic = list(
      task(1, { parallel_group: 1, depends_on: ["task-002"] }),
      task(2, { parallel_group: 2, depends_on: ["task-003"] }),
      task(3, { parallel_group: 3, depends_on: ["task-001"] }),
    );
    expect(messages(cyclic).filter((m) => m.startsWith("Dependency cycle"))).toEqual([
      "Dependency cycle: task-001 → task-002 → task-003 → task-001 (each depends on the next); remove one of these dependencies.",
    ]);
  });

  it("requires a dependency to be in an earlier parallel group, naming both tasks and groups", () => {
    expect(messages(list(task(1), task(2, { depends_on: ["task-001"] })))).toEqual([
      "task-002 (Task 2) is in parallel_group 1 but depends on task-001 (Task 1) in parallel_group 1; a dependency must be in an earlier parallel_group. Move task-002 to parallel_group 2 or later, or remove the dependency.",
    ]);
    expect(messages(list(task(1, { parallel_group: 3 }), task(2, { parallel_group: 2, depends_on: ["task-001"] })))[0]).toContain(
      "task-002 (Task 2) is in parallel_group 2 but depends on task-001 (Task 1) in parallel_group 3",
    );
  });

  it("rejects unknown statuses and groups below 1 (lists built in code)", () => {
    const bad = list(task(1, { status: "done" as Task["status"] }), task(2, { parallel_group: 0 }), task(3, { parallel_group: 1.5 }));
    expect(messages(bad)).toEqual([
      "Task 1 (task-001) has status 'done'; use one of: pending, running, completed, failed, skipped.",
      "Task 2 (task-002) has parallel_group 0; parallel groups are whole numbers starting at 1.",
      "Task 3 (task-003) has parallel_group 1.5; parallel groups are whole numbers starting at 1.",
    ]);
  });

  it("accepts every known status", () => {
    const statuses = ["pending", "running", "completed", "failed", "skipped"] as const;
    expect(messages(list(...statuses.map((status, i) => task(i + 1, { status }))))).toEqual([]);
  });
});
