import { formatProblems } from "../problems.ts";
import { mergeGenerated } from "../tasks/merge-generated.ts";
import { parseTasks } from "../tasks/parse-tasks.ts";
import type { Task, TaskList } from "../tasks/schema.ts";
import { serializeTasks } from "../tasks/serialize-tasks.ts";
import { validateTasks } from "../tasks/validate-tasks.ts";

export type TasksCheck = { ok: true; list: TaskList; text: string; notes: string[] } | { ok: false; problems: string };

/**
 * Whether a model's tasks.md can be written (pure): it must parse without problems; with
 * `existing`, the completed tasks of the existing file are merged back in (mergeGenerated); the
 * result must pass validateTasks. The text to write is that list in the canonical format, so what
 * is on disk always parses back to the same tasks.
 */
/** Why a task's `verify` command is no check this project can run (src/analysis judgeAcceptance), or undefined. */
export type AcceptanceJudge = (task: Task) => string | undefined;

export function checkTasksText(text: string, existing?: TaskList, acceptance?: AcceptanceJudge): TasksCheck {
  const parsed = parseTasks(text);
  if (parsed.problems.length > 0) return { ok: false, problems: formatProblems(parsed.problems, "tasks.md") };
  const generated = { ...parsed.tasks, preamble: canonicalPreamble(parsed.tasks.preamble) };
  // Validated after the merge: a completed task the model dropped is restored, not an unknown dependency.
  const merged = existing ? mergeGenerated(existing, generated) : { list: generated, notes: [], problems: validateTasks(generated) };
  if (merged.problems.length > 0) {
    const restored = existing?.tasks.filter((t) => t.status === "completed").map((t) => t.id) ?? [];
    const intro = restored.length
      ? [
          `Completed tasks (${restored.join(", ")}) are kept exactly as they were, whatever you write; with them restored, tasks.md has these problems:`,
        ]
      : [];
    return { ok: false, problems: [...intro, formatProblems(merged.problems, "tasks.md")].join("\n") };
  }
  // Completed tasks keep what they had; a check is judged where it will still run.
  const unrunnable = acceptance
    ? merged.list.tasks.flatMap((t) => {
        const why = t.status === "completed" || !t.verify ? undefined : acceptance(t);
        return why ? [{ message: `Task ${t.number} (${t.id}): its verify command cannot be the task's check: ${why}.` }] : [];
      })
    : [];
  if (unrunnable.length > 0) return { ok: false, problems: formatProblems(unrunnable, "tasks.md") };
  return { ok: true, list: merged.list, text: serializeTasks(merged.list), notes: merged.notes };
}

/** Text a model wrote before the `# Tasks` title is chatter, not part of the file. */
function canonicalPreamble(preamble: string): string {
  const lines = preamble.split("\n");
  const title = lines.findIndex((l) => /^#[ \t]/.test(l));
  return title < 0 ? "# Tasks" : lines.slice(title).join("\n");
}

/** Ids in `after` that `before` does not have, in file order. */
export function addedTasks(before: TaskList | undefined, after: TaskList): TaskList["tasks"] {
  const known = new Set(before?.tasks.map((t) => t.id) ?? []);
  return after.tasks.filter((t) => !known.has(t.id));
}

export function countGroups(list: TaskList): number {
  return new Set(list.tasks.map((t) => t.parallel_group)).size;
}
