import { describe, expect, it } from "vitest";
import { blockedInPhase, phasesToRun, pickTask, runnableInPhase, startChanges, taskFailedReason } from "../../../src/execute/index.ts";
import { parseTasks } from "../../../src/spec/index.ts";
import { tasksMd } from "../../e2e/execute/kinds.ts";

const list = (rows: Parameters<typeof tasksMd>[0]) => parseTasks(tasksMd(rows)).tasks;

describe("startChanges", () => {
  it("puts running tasks back to pending and gives failed/skipped tasks another chance; completed ones stay", () => {
    const l = list([
      ["a", "completed", 1, [], "A"],
      ["b", "failed", 1, [], "B"],
      ["c", "running", 2, ["a"], "C"],
      ["d", "failed", 2, ["a"], "D"],
      ["e", "skipped", 3, ["d"], "E"],
    ]);
    const changes = startChanges(l);
    expect(changes.map((c) => `${c.id}→${c.status}`)).toEqual(["b→pending", "c→pending", "d→pending", "e→pending"]);
    expect(changes[1]?.reason).toContain("was running");
  });
});

describe("phasesToRun", () => {
  it("skips committed phases unless they have pending tasks (added later)", () => {
    const l = list([
      ["a", "completed", 1, [], "A"],
      ["b", "completed", 2, [], "B"],
      ["c", "pending", 2, [], "C"],
      ["d", "pending", 3, [], "D"],
    ]);
    expect(phasesToRun(l, new Set([1, 2]))).toEqual([2, 3]);
    expect(phasesToRun(l, new Set([1]))).toEqual([2, 3]);
    expect(phasesToRun(list([["a", "completed", 1, [], "A"]]), new Set([1]))).toEqual([]);
  });
});

describe("blockedInPhase / runnableInPhase", () => {
  const l = list([
    ["a", "failed", 1, [], "A"],
    ["b", "completed", 1, [], "B"],
    ["c", "pending", 2, ["a"], "C"],
    ["d", "pending", 2, ["b"], "D"],
    ["e", "skipped", 2, ["a"], "E"],
    ["f", "pending", 3, ["e", "d"], "F"],
  ]);

  it("skips pending tasks whose dependency failed or was skipped, with the reason", () => {
    expect(blockedInPhase(l, 2)).toEqual([{ id: "c", status: "skipped", reason: "depends on a, which failed" }]);
    expect(blockedInPhase(l, 3)).toEqual([{ id: "f", status: "skipped", reason: "depends on e, which was skipped" }]);
  });

  it("runs only pending tasks whose dependencies are all completed", () => {
    expect(runnableInPhase(l, 2).map((t) => t.id)).toEqual(["d"]);
    expect(runnableInPhase(l, 3)).toEqual([]);
  });
});

describe("taskFailedReason", () => {
  it.each([
    ["Did it.\nTASK_FAILED: tests do not compile", "tests do not compile"],
    ["Did it.\n\n**TASK_FAILED: no access**\n\n", "no access"],
    ["Summary\n```\nTASK_FAILED: inside a fence at the end\n```", "inside a fence at the end"],
    ["TASK_FAILED:", "(no reason given)"],
  ])("reads the reason from the last line of %j", (text, reason) => {
    expect(taskFailedReason(text)).toBe(reason);
  });

  it.each([["All done."], ["TASK_FAILED: early\nbut then it worked."], ["I would write TASK_FAILED: x if it failed; it did not."], [""]])(
    "is undefined for %j",
    (text) => {
      expect(taskFailedReason(text)).toBeUndefined();
    },
  );
});

describe("pickTask", () => {
  const l = list([
    ["a", "completed", 1, [], "A"],
    ["b", "failed", 1, [], "B"],
    ["c", "pending", 2, ["a"], "C"],
    ["d", "pending", 2, ["b"], "D"],
  ]);

  it("infers the only runnable task", () => {
    expect(pickTask(l, undefined)).toMatchObject({ task: { id: "c" } });
  });

  it("runs a failed task by id, never a completed one, and not one with unmet dependencies", () => {
    expect(pickTask(l, "b")).toMatchObject({ task: { id: "b" } });
    expect(pickTask(l, "a")).toMatchObject({ error: "a is already completed; completed tasks are never run again." });
    expect(pickTask(l, "d")).toMatchObject({ error: "d depends on b, which is not completed." });
    expect(pickTask(l, "zz")).toMatchObject({ error: "No task with id 'zz'.", candidates: ["a", "b", "c", "d"] });
  });

  it("asks for an id when several are runnable", () => {
    const two = list([
      ["a", "pending", 1, [], "A"],
      ["b", "pending", 1, [], "B"],
    ]);
    expect(pickTask(two, undefined)).toEqual({ error: "2 tasks are runnable; say which one.", candidates: ["a", "b"] });
  });
});
