import type { Task, TaskList } from "./schema.ts";

export interface Phase {
  group: number;
  tasks: Task[];
}

/** Parallel groups in ascending order, each with its tasks in file order. */
export function phases(list: TaskList): Phase[] {
  const groups = new Map<number, Task[]>();
  for (const task of list.tasks) groups.set(task.parallel_group, [...(groups.get(task.parallel_group) ?? []), task]);
  return [...groups.entries()].sort(([a], [b]) => a - b).map(([group, tasks]) => ({ group, tasks }));
}

/**
 * Pending tasks whose dependencies are all completed, in phase then file order. A dependency that
 * is skipped, failed or unknown keeps a task waiting: only `completed` satisfies it.
 */
export function runnableTasks(list: TaskList): Task[] {
  const completed = new Set(list.tasks.filter((t) => t.status === "completed").map((t) => t.id));
  return phases(list)
    .flatMap((phase) => phase.tasks)
    .filter((t) => t.status === "pending" && t.depends_on.every((dep) => completed.has(dep)));
}

/** Tasks that depend, directly or through other tasks, on one of `failedIds` (those excluded), in file order. */
export function blockedBy(list: TaskList, failedIds: Iterable<string>): Task[] {
  const failed = new Set(failedIds);
  const blocked = new Set<string>();
  let grew = true;
  // Fixed point over the dependency edges; task lists are small, and this terminates on cycles.
  while (grew) {
    grew = false;
    for (const task of list.tasks) {
      if (failed.has(task.id) || blocked.has(task.id)) continue;
      if (task.depends_on.some((dep) => failed.has(dep) || blocked.has(dep))) {
        blocked.add(task.id);
        grew = true;
      }
    }
  }
  return list.tasks.filter((t) => blocked.has(t.id));
}
