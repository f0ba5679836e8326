import { describe, expect, it } from "vitest";
import {
  buildOrder,
  claimsProgress,
  claimsVerified,
  decide,
  nextStagnant,
  parseCheckboxTasks,
  setCheckboxTask,
  viewCheckboxTasks,
  workState,
  type Observation,
} from "../../../src/build/index.ts";
import { parseTasks } from "../../../src/spec/index.ts";
import { tasksMd } from "./fixtures.ts";

const base: Observation = {
  iteration: 1,
  maxIterations: 10,
  remaining: 2,
  total: 3,
  tasksChanged: true,
  filesChanged: true,
  claimedProgress: false,
  stagnantTurns: 0,
  stagnationLimit: 3,
  interrupted: false,
  stopRequested: false,
  verifying: false,
  claimedVerified: false,
};

describe("decide", () => {
  it("continues while tasks remain, reminding only when files changed but the tasks file did not", () => {
    expect(decide(base)).toEqual({ kind: "continue" });
    expect(decide({ ...base, tasksChanged: false })).toEqual({ kind: "continue", remind: "files_changed" });
    expect(decide({ ...base, tasksChanged: false, claimedProgress: true })).toEqual({ kind: "continue", remind: "files_changed" });
  });
  it("reminds when the reply claims progress but the tasks file did not change; the claim alone is still stagnation", () => {
    const claim = { ...base, tasksChanged: false, filesChanged: false, claimedProgress: true };
    expect(decide(claim)).toEqual({ kind: "continue", remind: "claimed_progress" });
    expect(decide({ ...claim, tasksChanged: true })).toEqual({ kind: "continue" });
    expect(decide({ ...claim, claimedProgress: false })).toEqual({ kind: "continue" });
    expect(nextStagnant({ ...claim, stagnantTurns: 1 })).toBe(2);
    expect(decide({ ...claim, stagnantTurns: 2 })).toEqual({ kind: "stop", reason: "stagnation" });
  });
  it("puts stop before interruption before everything else", () => {
    expect(decide({ ...base, stopRequested: true, interrupted: true })).toEqual({ kind: "stop", reason: "stop_requested" });
    expect(decide({ ...base, interrupted: true, iteration: 10 })).toEqual({ kind: "pause", reason: "interrupted" });
  });
  it("stops on the K-th turn in a row without change, and at max iterations", () => {
    const still = { ...base, tasksChanged: false, filesChanged: false };
    expect(decide({ ...still, stagnantTurns: 1 })).toEqual({ kind: "continue" });
    expect(decide({ ...still, stagnantTurns: 2 })).toEqual({ kind: "stop", reason: "stagnation" });
    expect(decide({ ...base, iteration: 10 })).toEqual({ kind: "stop", reason: "max_iterations" });
  });
  it("verifies once every task is done: fix on failing checks, confirm on passing ones, done only with VERIFIED", () => {
    const done = { ...base, remaining: 0 };
    const passing = { passed: true, blocking: false };
    expect(decide({ ...done, checks: { passed: false, blocking: true }, claimedVerified: true, verifying: true })).toEqual({ kind: "fix" });
    expect(decide({ ...done, checks: passing })).toEqual({ kind: "confirm" });
    expect(decide({ ...done, checks: passing, verifying: true })).toEqual({ kind: "confirm" });
    expect(decide({ ...done, checks: passing, verifying: true, claimedVerified: true, iteration: 10 })).toEqual({ kind: "done" });
  });
  it("a failure the build did not cause (pre-existing, not worse) asks for no fix: confirm, then done", () => {
    const done = { ...base, remaining: 0 };
    const preExisting = { passed: false, blocking: false };
    expect(decide({ ...done, checks: preExisting })).toEqual({ kind: "confirm" });
    expect(decide({ ...done, checks: preExisting, verifying: true })).toEqual({ kind: "confirm" });
    expect(decide({ ...done, checks: preExisting, verifying: true, claimedVerified: true })).toEqual({ kind: "done" });
    // Without VERIFIED the limits still end it: a confirm turn that changes nothing stagnates.
    expect(decide({ ...done, checks: preExisting, verifying: true, tasksChanged: false, filesChanged: false, stagnantTurns: 2 })).toEqual({
      kind: "stop",
      reason: "stagnation",
    });
  });
});

describe("claimsProgress", () => {
  it("reads a claim of finished work in the reply", () => {
    for (const reply of [
      "Finished task 2 and marked it done.",
      "Implemented the login route.",
      "task-002 is complete",
      "Done.",
      "I completed task-003",
      "Fixed the handler",
    ]) {
      expect(claimsProgress(reply), reply).toBe(true);
    }
  });
  it("not when the work is negated or only planned", () => {
    for (const reply of [
      "I am thinking about it.",
      "nothing to do",
      "Not done yet.",
      "I haven't finished task-002.",
      "Nothing was implemented.",
      "I will complete it next.",
      "No task completed",
      "I will mark it done after the tests.",
      "",
    ]) {
      expect(claimsProgress(reply), reply).toBe(false);
    }
    expect(claimsProgress("I could not run the tests, but I implemented the route.")).toBe(true);
  });
});

describe("claimsVerified", () => {
  it("wants VERIFIED as the last line", () => {
    expect(claimsVerified("All checks pass.\n\n**VERIFIED**\n")).toBe(true);
    expect(claimsVerified("VERIFIED, except the tests")).toBe(false);
    expect(claimsVerified("VERIFIED\nbut one more thing")).toBe(false);
  });
});

describe("OpenSpec checkbox tasks", () => {
  const text = "# Tasks\n\n## 1. API\n- [x] 1.1 Add the route\n- [ ] 1.2 Add the handler\n  - [ ] nested step\n\nProse.\n";
  it("parses checkboxes with their numbers", () => {
    expect(parseCheckboxTasks(text)).toEqual([
      { id: "1.1", title: "Add the route", done: true, line: 3 },
      { id: "1.2", title: "Add the handler", done: false, line: 4 },
      { id: "line-6", title: "nested step", done: false, line: 5 },
    ]);
    expect(viewCheckboxTasks(text)).toMatchObject({ total: 3, done: 1, next: { id: "1.2", title: "Add the handler" } });
  });
  it("ticks one box and changes nothing else", () => {
    const next = setCheckboxTask(text, "1.2", true);
    expect(next).toBe(text.replace("- [ ] 1.2", "- [x] 1.2"));
    expect(setCheckboxTask(next, "1.1", false)).toBe(next.replace("- [x] 1.1", "- [ ] 1.1"));
    expect(setCheckboxTask(text, "9.9", true)).toBe(text);
  });
});

describe("buildOrder", () => {
  it("puts numeric prefixes first, by number, then names", () => {
    expect(buildOrder(["zeta", "10-b", "alpha", "2-a", "002_c"])).toEqual(["002_c", "2-a", "10-b", "alpha", "zeta"]);
  });
});

describe("workState", () => {
  it("says ready, blocked or all_done", () => {
    expect(workState(parseTasks(tasksMd(3, 1)).tasks)).toEqual({ progress: { done: 1, total: 3, percent: 33 }, state: "ready" });
    expect(workState(parseTasks(tasksMd(2, 2)).tasks).state).toBe("all_done");
    const blocked = tasksMd(2)
      .replace("- **status**: pending", "- **status**: failed")
      .replace("- **depends_on**: []\n- **description**: Step 2", "- **depends_on**: [task-001]\n- **description**: Step 2")
      .replace("- **parallel_group**: 1\n- **depends_on**: [task-001]", "- **parallel_group**: 2\n- **depends_on**: [task-001]");
    expect(workState(parseTasks(blocked).tasks).state).toBe("blocked");
  });
});
