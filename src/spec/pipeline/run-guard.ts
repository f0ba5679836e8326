import { formatProblems } from "../problems.ts";
import { parseQuestions } from "../questions/parse-questions.ts";
import { parseTasks } from "../tasks/parse-tasks.ts";
import type { Task, TaskList } from "../tasks/schema.ts";
import { validateTasks } from "../tasks/validate-tasks.ts";
import { checkTasksText } from "./tasks-check.ts";

/**
 * `/otto-spec run` lets the executor edit the spec files directly, so tasks.md and questions.md are
 * checked once it is done: an invalid tasks.md is never left on disk, and completed tasks stay as
 * they were. Pure: what to do with a file, given its text before and after the run.
 */
export type RunEdit =
  | { action: "keep" }
  /** The edit is kept with the completed tasks restored (the merge `task generate` uses). */
  | { action: "write"; text: string; notes: string[] }
  /** The edit cannot be repaired: the file goes back to `before` (undefined: removed). */
  | { action: "restore"; problems: string };

/** Ids of tasks completed in `before` that `after` dropped or changed (status, content, anything but the heading number). */
export function changedCompletedTasks(before: TaskList, after: TaskList): string[] {
  const same = (a: Task, b: Task | undefined) =>
    b !== undefined && JSON.stringify({ ...a, number: 0 }) === JSON.stringify({ ...b, number: 0 });
  return before.tasks
    .filter(
      (t) =>
        t.status === "completed" &&
        !same(
          t,
          after.tasks.find((n) => n.id === t.id),
        ),
    )
    .map((t) => t.id);
}

export function checkTasksEdit(before: string | undefined, after: string | undefined): RunEdit {
  if (after === before) return { action: "keep" };
  const previous = before === undefined ? undefined : parseTasks(before).tasks;
  const hasCompleted = previous?.tasks.some((t) => t.status === "completed") ?? false;
  if (after === undefined)
    return hasCompleted ? { action: "restore", problems: "tasks.md was deleted, but it has completed tasks." } : { action: "keep" };
  const parsed = parseTasks(after);
  const problems = parsed.problems.length > 0 ? parsed.problems : validateTasks(parsed.tasks);
  const lost = previous ? changedCompletedTasks(previous, parsed.tasks) : [];
  if (problems.length === 0 && lost.length === 0) return { action: "keep" };
  const merged = checkTasksText(after, previous);
  if (merged.ok) return { action: "write", text: merged.text, notes: merged.notes };
  return { action: "restore", problems: merged.problems };
}

export function checkQuestionsEdit(before: string | undefined, after: string | undefined): RunEdit {
  if (after === before || after === undefined) return { action: "keep" };
  const { problems } = parseQuestions(after);
  return problems.length === 0 ? { action: "keep" } : { action: "restore", problems: formatProblems(problems, "questions.md") };
}
