import { describe, expect, it } from "vitest";
import { addedTasks, checkTasksText, parseTasks } from "../../../../src/spec/index.ts";
import { tasksMd } from "./fake-spec.ts";

const problemsOf = (check: ReturnType<typeof checkTasksText>): string => (check.ok ? "(valid)" : check.problems);

const valid = tasksMd([
  ["task-001", "pending", 1, [], "Create store"],
  ["task-002", "pending", 2, ["task-001"], "Add middleware"],
]);

describe("checkTasksText", () => {
  it("accepts a valid list and returns it in the canonical format", () => {
    const check = checkTasksText(`Here it is:\n${valid}`);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.list.tasks.map((t) => t.id)).toEqual(["task-001", "task-002"]);
    expect(check.text).toBe(valid);
  });

  it("names a cycle and a duplicate id so the model can fix them", () => {
    const cycle = checkTasksText(
      tasksMd([
        ["task-001", "pending", 1, ["task-002"], "A"],
        ["task-002", "pending", 1, ["task-001"], "B"],
      ]),
    );
    expect(problemsOf(cycle)).toContain("Dependency cycle: task-001 → task-002 → task-001");
    const duplicate = checkTasksText(
      tasksMd([
        ["task-001", "pending", 1, [], "A"],
        ["task-001", "pending", 1, [], "B"],
      ]),
    );
    expect(problemsOf(duplicate)).toContain("Id 'task-001' is used by Task 1 and Task 2");
  });

  it("reports parse problems with their line", () => {
    expect(problemsOf(checkTasksText("# Tasks\n\nnothing here"))).toMatch(/^tasks\.md:1: No tasks found/);
  });

  it("restores completed tasks the model changed or dropped, and says so", () => {
    const existing = parseTasks(
      tasksMd([
        ["task-001", "completed", 1, [], "Create store"],
        ["task-002", "pending", 2, ["task-001"], "Add middleware"],
      ]),
    ).tasks;
    const dropped = checkTasksText(tasksMd([["task-002", "pending", 2, ["task-001"], "Add middleware"]]), existing);
    expect(dropped.ok).toBe(true);
    if (!dropped.ok) return;
    expect(dropped.list.tasks.map((t) => `${t.id} ${t.status}`)).toEqual(["task-001 completed", "task-002 pending"]);
    expect(dropped.notes.join("\n")).toContain("task-001 (completed) was missing from the generated tasks");

    const changed = checkTasksText(
      tasksMd([
        ["task-001", "pending", 1, [], "Rewritten"],
        ["task-002", "pending", 2, ["task-001"], "Add middleware"],
      ]),
      existing,
    );
    expect(changed.ok && changed.list.tasks[0]).toMatchObject({ status: "completed", title: "Create store" });
    expect(changed.ok && changed.notes[0]).toContain("so the completed task was restored");
  });

  it("rejects a list that only breaks once the completed tasks are restored", () => {
    const existing = parseTasks(tasksMd([["task-001", "completed", 2, [], "Done"]])).tasks;
    // The model moved task-001 to group 1 and put a dependant in group 2: restored, task-001 is in group 2 again.
    const check = checkTasksText(
      tasksMd([
        ["task-001", "completed", 1, [], "Done"],
        ["task-002", "pending", 2, ["task-001"], "Next"],
      ]),
      existing,
    );
    expect(problemsOf(check)).toContain("Completed tasks (task-001) are kept exactly as they were");
    expect(problemsOf(check)).toContain("a dependency must be in an earlier parallel_group");
  });
});

describe("addedTasks", () => {
  it("lists the ids that are new", () => {
    const before = parseTasks(valid).tasks;
    const after = parseTasks(
      `${valid}\n## Task 3: More\n- **id**: task-003\n- **status**: pending\n- **parallel_group**: 3\n- **depends_on**: []\n- **description**: x\n`,
    ).tasks;
    expect(addedTasks(before, after).map((t) => t.id)).toEqual(["task-003"]);
    expect(addedTasks(undefined, before)).toHaveLength(2);
  });
});
