import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { OttoError } from "../../../src/core/errors.ts";
import { isOttoError } from "../../../src/core/errors.ts";
import { normalizeProse } from "../../../src/spec/fields.ts";
import { parseTasks, serializeTasks, updateTaskStatus } from "../../../src/spec/index.ts";
import { prose, random, taskList } from "./fuzz-content.ts";

const messy = fs.readFileSync(fileURLToPath(new URL("../../fixtures/spec/tasks-messy-model.md", import.meta.url)), "utf8");
const designDoc = fs.readFileSync(fileURLToPath(new URL("../../fixtures/spec/tasks-design-doc.md", import.meta.url)), "utf8");

/** Line numbers (0-based) where two texts differ, comparing line by line. */
function changedLines(a: string, b: string): number[] {
  const x = a.split("\n");
  const y = b.split("\n");
  return Array.from({ length: Math.max(x.length, y.length) }, (_, i) => i).filter((i) => x[i] !== y[i]);
}

function thrown(fn: () => unknown): OttoError {
  try {
    fn();
  } catch (error) {
    if (isOttoError(error)) return error;
    throw error;
  }
  throw new Error("expected an OttoError");
}

describe("updateTaskStatus", () => {
  it("changes only the value on the target's status line, keeping its comment", () => {
    const updated = updateTaskStatus(designDoc, "task-001", "running");
    expect(changedLines(designDoc, updated)).toEqual([4]);
    expect(updated.split("\n")[4]).toBe("- **status**: running          <!-- pending | running | completed | failed | skipped -->");
    expect(parseTasks(updated).tasks.tasks.map((t) => t.status)).toEqual(["running", "pending", "pending"]);
  });

  it("edits odd formatting in place (bullets, bold colon, level-3 heading)", () => {
    const updated = updateTaskStatus(messy, "task-002", "completed");
    expect(changedLines(messy, updated)).toEqual([34]);
    expect(updated.split("\n")[34]).toBe("* **status**: completed");
    const again = updateTaskStatus(updated, "task-001", "failed");
    expect(again.split("\n")[11]).toBe("- **Status:** failed   <!-- finished in run-001 -->");
    expect(parseTasks(again).tasks.tasks.map((t) => t.status)).toEqual(["failed", "completed", "pending", "pending"]);
  });

  it("returns the same text when the status is unchanged", () => {
    expect(updateTaskStatus(designDoc, "task-002", "pending")).toBe(designDoc);
  });

  it("adds and replaces extra fields of the target task only", () => {
    const failed = updateTaskStatus(designDoc, "task-002", "failed", {
      last_error: "tests failed:\n  expected 200, got 500",
      attempts: "3",
    });
    const lines = failed.split("\n");
    expect(lines.slice(15, 20)).toEqual([
      "- **description**: Implement POST /auth/login...",
      "- **last_error**: tests failed:",
      "  expected 200, got 500",
      "- **attempts**: 3",
      "",
    ]);
    const task = parseTasks(failed).tasks.tasks[1];
    expect(task).toMatchObject({
      status: "failed",
      description: "Implement POST /auth/login...",
      extra: { last_error: "tests failed:\nexpected 200, got 500", attempts: "3" },
    });

    const retried = updateTaskStatus(failed, "task-002", "completed", { attempts: "4", last_error: "" });
    expect(parseTasks(retried).tasks.tasks[1]?.extra).toEqual({ last_error: "", attempts: "4" });
    expect(retried).toBe(
      failed
        .replace("- **status**: failed", "- **status**: completed")
        .replace("- **last_error**: tests failed:\n  expected 200, got 500", "- **last_error**:")
        .replace("- **attempts**: 3", "- **attempts**: 4"),
    );
    expect(parseTasks(retried).tasks.tasks.map((t) => t.extra)).toEqual([{}, { last_error: "", attempts: "4" }, {}]);
  });

  it("inserts a missing status line after the id", () => {
    const text = "# Tasks\n\n## Task 1: A\n- **id**: a\n- **parallel_group**: 1\n- **description**: x\n";
    expect(updateTaskStatus(text, "a", "running")).toBe(
      "# Tasks\n\n## Task 1: A\n- **id**: a\n- **status**: running\n- **parallel_group**: 1\n- **description**: x\n",
    );
  });

  it("keeps CRLF line endings", () => {
    const crlf = designDoc.replace(/\n/g, "\r\n");
    expect(updateTaskStatus(crlf, "task-003", "skipped")).toBe(updateTaskStatus(designDoc, "task-003", "skipped").replace(/\n/g, "\r\n"));
  });

  it("names the known ids when the task does not exist", () => {
    const error = thrown(() => updateTaskStatus(designDoc, "task-009", "completed"));
    expect(error.code).toBe("task_not_found");
    expect(error.message).toBe("No task with id 'task-009' in tasks.md; the ids are: task-001, task-002, task-003.");
    expect(error.fix).toBe("Check the id with /otto-spec task list");
  });

  it("rejects an unknown status and extra keys that are known fields", () => {
    expect(thrown(() => updateTaskStatus(designDoc, "task-001", "done" as "pending")).code).toBe("invalid_task_status");
    expect(thrown(() => updateTaskStatus(designDoc, "task-001", "failed", { depends_on: "[]" })).code).toBe("invalid_task_field");
  });
});

describe("updateTaskStatus on generated files", () => {
  const STATUSES = ["pending", "running", "completed", "failed", "skipped"] as const;
  it.each(Array.from({ length: 200 }, (_, seed) => seed))("changes the target task's status and extras only, seed %i", (seed) => {
    const rand = random(5000 + seed);
    const model = taskList(rand);
    const target = model.tasks[Math.floor(rand() * model.tasks.length)] ?? model.tasks[0];
    if (!target) throw new Error("no task generated");
    let text = serializeTasks(model);
    // A missing status line makes the update insert one, which moves every line after it.
    if (rand() < 0.3) text = text.replace(`- **id**: ${target.id}\n- **status**: ${target.status}\n`, `- **id**: ${target.id}\n`);
    const status = STATUSES[Math.floor(rand() * STATUSES.length)] ?? "pending";
    const keys = ["last_error", "note", "step"].filter(() => rand() < 0.6);
    const extra = Object.fromEntries(keys.map((k) => [k, prose(rand)]));

    const updated = updateTaskStatus(text, target.id, status, extra);
    const before = parseTasks(text).tasks;
    const normalized = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, normalizeProse(v)]));
    expect(parseTasks(updated).tasks).toEqual({
      ...before,
      tasks: before.tasks.map((t) => (t.id === target.id ? { ...t, status, extra: { ...t.extra, ...normalized } } : t)),
    });
    // Lines outside the target's section stay as they were.
    const heading = `## Task ${target.number}:`;
    const next = (s: string): number => s.indexOf("\n## Task ", s.indexOf(heading) + 1);
    expect(updated.slice(0, updated.indexOf(heading))).toBe(text.slice(0, text.indexOf(heading)));
    expect(next(updated) < 0 ? "" : updated.slice(next(updated))).toBe(next(text) < 0 ? "" : text.slice(next(text)));
  });
});
