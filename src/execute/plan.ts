import { phases, type Task, type TaskList, type TaskStatus } from "../spec/index.ts";

/*
 * Which tasks run next, and what state changes a run starts with. Pure functions of the task list
 * and of the phases git says are committed; the loop (execute-spec.ts) does the I/O.
 */

export interface StatusChange {
  id: string;
  status: TaskStatus;
  /** Why, for the summary and the task's `skip_reason` field. */
  reason: string;
}

/**
 * The changes a run starts with: a `running` task is the trace of a run that crashed or was
 * killed, so it goes back to `pending`; failed and skipped tasks get another chance (pending
 * again; a skipped one is skipped again if its dependency still fails). Completed tasks are
 * never touched: they never run again.
 */
export function startChanges(list: TaskList): StatusChange[] {
  const changes: StatusChange[] = [];
  for (const task of list.tasks) {
    if (task.status === "running") changes.push({ id: task.id, status: "pending", reason: "was running when an earlier run stopped" });
    else if (task.status === "failed" || task.status === "skipped")
      changes.push({ id: task.id, status: "pending", reason: `was ${task.status} in an earlier run` });
  }
  return changes;
}

/**
 * The phases that still need work, ascending: not committed yet, or with pending tasks (retried,
 * unblocked or added later; such a phase gets another commit only if one of them completes).
 */
export function phasesToRun(list: TaskList, committed: ReadonlySet<number>): number[] {
  return phases(list)
    .filter((phase) => !committed.has(phase.group) || phase.tasks.some((t) => t.status === "pending"))
    .map((phase) => phase.group);
}

/**
 * Pending tasks of `group` that can never run in this run, because a dependency ended `failed` or
 * `skipped` (dependencies always sit in earlier phases, which have run by now), with the reason.
 */
export function blockedInPhase(list: TaskList, group: number): StatusChange[] {
  const byId = new Map(list.tasks.map((t) => [t.id, t]));
  const out: StatusChange[] = [];
  for (const task of list.tasks) {
    if (task.parallel_group !== group || task.status !== "pending") continue;
    const blocker = task.depends_on.map((id) => byId.get(id)).find((dep) => dep && dep.status !== "completed");
    if (blocker && (blocker.status === "failed" || blocker.status === "skipped")) {
      out.push({
        id: task.id,
        status: "skipped",
        reason: `depends on ${blocker.id}, which ${blocker.status === "failed" ? "failed" : "was skipped"}`,
      });
    }
  }
  return out;
}

/** Pending tasks of `group` whose dependencies are all completed, in file order. */
export function runnableInPhase(list: TaskList, group: number): Task[] {
  const completed = new Set(list.tasks.filter((t) => t.status === "completed").map((t) => t.id));
  return list.tasks.filter((t) => t.parallel_group === group && t.status === "pending" && t.depends_on.every((d) => completed.has(d)));
}

export function tasksOf(list: TaskList, group: number): Task[] {
  return list.tasks.filter((t) => t.parallel_group === group);
}

/** A phase is worth reviewing and committing when at least one of its tasks is completed. */
export function phaseHasWork(list: TaskList, group: number): boolean {
  return tasksOf(list, group).some((t) => t.status === "completed");
}

export { taskFailedReason } from "../session/index.ts";

/**
 * The task `task run` works on: the `--id` given (any status but completed), or the only runnable
 * task. Returns an error message instead of throwing, so the verb phrases the fix.
 */
export function pickTask(list: TaskList, id: string | undefined): { task: Task } | { error: string; candidates: string[] } {
  const runnable = list.tasks.filter((t) => t.status === "pending" && runnableDeps(list, t));
  if (id === undefined) {
    const [only] = runnable;
    if (only && runnable.length === 1) return { task: only };
    return {
      error:
        runnable.length === 0
          ? "No task is runnable (pending with every dependency completed)."
          : `${runnable.length} tasks are runnable; say which one.`,
      candidates: runnable.map((t) => t.id),
    };
  }
  const task = list.tasks.find((t) => t.id === id);
  if (!task) return { error: `No task with id '${id}'.`, candidates: list.tasks.map((t) => t.id) };
  if (task.status === "completed")
    return { error: `${id} is already completed; completed tasks are never run again.`, candidates: runnable.map((t) => t.id) };
  if (!runnableDeps(list, task)) {
    const waiting = task.depends_on.filter((d) => list.tasks.find((t) => t.id === d)?.status !== "completed");
    return {
      error: `${id} depends on ${waiting.join(", ")}, which ${waiting.length === 1 ? "is" : "are"} not completed.`,
      candidates: runnable.map((t) => t.id),
    };
  }
  return { task };
}

function runnableDeps(list: TaskList, task: Task): boolean {
  return task.depends_on.every((d) => list.tasks.find((t) => t.id === d)?.status === "completed");
}
