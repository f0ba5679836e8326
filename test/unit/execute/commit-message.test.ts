import { describe, expect, it } from "vitest";
import { parseTrailers, renderCommitMessage, summaryOf } from "../../../src/execute/index.ts";

describe("commit messages", () => {
  const message = renderCommitMessage({
    slug: "greeting",
    trailer: { kind: "phase", slug: "greeting", group: 2 },
    subject: "phase 2: task-003, task-004",
    tasks: [
      { id: "task-003", title: "Add the middleware", status: "completed", note: "Added src/mw.ts.\nTests pass." },
      { id: "task-004", title: "Docs", status: "failed", note: "TASK_FAILED: no docs folder" },
    ],
    steps: ["Review gate (secondary): approve: no issues", "Verification: passed (npm test: passed)"],
    verify: "passed",
  });

  it("names the spec, the phase and its tasks, and ends with the trailers", () => {
    expect(message.split("\n")[0]).toBe("otto(greeting): phase 2: task-003, task-004");
    expect(message).toContain("- task-003 completed: Add the middleware");
    expect(message).toContain("task-004: TASK_FAILED: no docs folder");
    expect(message).toContain("Verification: passed");
    expect(message.trimEnd().split("\n").slice(-2)).toEqual(["Otto-Phase: greeting/2", "Otto-Verify: passed"]);
  });

  it("parses its own trailers back, and only otto's exact forms", () => {
    expect(parseTrailers(message)).toEqual([{ kind: "phase", slug: "greeting", group: 2 }]);
    expect(
      parseTrailers("x\n\nOtto-Task: greeting/task-003\nOtto-Docs: greeting\nOtto-Phase: greeting/two\nOtto-Docs: greeting/1"),
    ).toEqual([
      { kind: "task", slug: "greeting", id: "task-003" },
      { kind: "docs", slug: "greeting" },
    ]);
  });

  it("gives later phases the message without trailers as the summary", () => {
    const summary = summaryOf(message);
    expect(summary).toContain("Added src/mw.ts.");
    expect(summary).not.toContain("Otto-");
  });

  it("keeps long summaries short (the full text is in history/)", () => {
    const long = renderCommitMessage({
      slug: "s",
      trailer: { kind: "docs", slug: "s" },
      subject: "align documentation",
      tasks: [{ id: "t", title: "T", status: "completed", note: "x".repeat(5_000) }],
      steps: [],
      verify: "none",
    });
    expect(long.length).toBeLessThan(1_000);
    expect(parseTrailers(long)).toEqual([{ kind: "docs", slug: "s" }]);
  });
});
