import { TASK_STATUSES, type TaskList, type TaskStatus } from "./schema.ts";

export type StatusCounts = Record<TaskStatus, number>;

export interface TaskSummary {
  total: number;
  byStatus: StatusCounts;
  /** One entry per parallel_group, ascending. */
  byGroup: Array<{ group: number; total: number; byStatus: StatusCounts }>;
}

function emptyCounts(): StatusCounts {
  return Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as StatusCounts;
}

/** Counts per status and per parallel group, for `task list`, `spec list` and progress lines. */
export function summarizeTasks(list: TaskList): TaskSummary {
  const byStatus = emptyCounts();
  const groups = new Map<number, { group: number; total: number; byStatus: StatusCounts }>();
  for (const task of list.tasks) {
    byStatus[task.status]++;
    const group = groups.get(task.parallel_group) ?? { group: task.parallel_group, total: 0, byStatus: emptyCounts() };
    group.total++;
    group.byStatus[task.status]++;
    groups.set(task.parallel_group, group);
  }
  return { total: list.tasks.length, byStatus, byGroup: [...groups.values()].sort((a, b) => a.group - b.group) };
}
