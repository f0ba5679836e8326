import type { Problem } from "../problems.ts";
import type { Task, TaskList } from "./schema.ts";
import { validateTasks } from "./validate-tasks.ts";

export interface MergeResult {
  list: TaskList;
  /** What was restored or changed, one sentence each, for the command's output. */
  notes: string[];
  /** validateTasks on the merged list: reported, never silently fixed. */
  problems: Problem[];
}

const COMPARED = ["title", "status", "parallel_group", "depends_on", "description", "files", "extra"] as const;

/**
 * The idempotency rule of `task generate`, enforced in code rather than trusted to the model:
 * every task completed in `existing` stays, with its id, status and content, whatever `generated`
 * did to it (changed → restored, dropped → re-inserted after its old predecessor). All other tasks
 * come from `generated`, except that a task cannot become completed without having run.
 */
export function mergeGenerated(existing: TaskList, generated: TaskList): MergeResult {
  const completed = new Map(existing.tasks.filter((t) => t.status === "completed").map((t) => [t.id, t]));
  const notes: string[] = [];
  const restored = new Set<string>();

  const tasks = generated.tasks.map((task): Task => {
    const done = completed.get(task.id);
    if (done && !restored.has(task.id)) {
      restored.add(task.id);
      const changed = COMPARED.filter((key) => JSON.stringify(done[key]) !== JSON.stringify(task[key]));
      if (changed.length > 0) {
        notes.push(`${task.id} is completed; the generated version changed its ${changed.join(", ")}, so the completed task was restored.`);
      }
      return { ...done, number: task.number };
    }
    if (task.status === "completed") {
      notes.push(`${task.id} was marked completed by the generated list but had not been completed; it was set to pending.`);
      return { ...task, status: "pending" };
    }
    return task;
  });

  let previous: string | undefined;
  let inserted = false;
  for (const task of existing.tasks) {
    if (completed.get(task.id) === task && !restored.has(task.id)) {
      const at = previous === undefined ? 0 : tasks.findIndex((t) => t.id === previous) + 1;
      tasks.splice(at, 0, task);
      restored.add(task.id);
      inserted = true;
      const twin = tasks.find((t) => t.id !== task.id && sameTitle(t, task));
      notes.push(
        `${task.id} (completed) was missing from the generated tasks; it was re-inserted ${previous ? `after ${previous}` : "at the start"}.` +
          (twin ? ` Generated ${twin.id} has the same title ('${twin.title}') and may duplicate it.` : ""),
      );
    }
    if (tasks.some((t) => t.id === task.id)) previous = task.id;
  }

  // Heading numbers are display order: once a task is re-inserted, number them 1..n again.
  const merged = inserted ? tasks.map((t, i) => ({ ...t, number: i + 1 })) : tasks;
  const list = { preamble: generated.preamble, tasks: merged };
  return { list, notes, problems: validateTasks(list) };
}

function sameTitle(a: Task, b: Task): boolean {
  const norm = (s: string): string =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, " ")
      .trim();
  return norm(a.title) !== "" && norm(a.title) === norm(b.title);
}
