import type { LedgerEntry } from "./ledger.ts";
import { addUsage, totalTokens, ZERO_USAGE, type Usage } from "./usage.ts";

/** An account name of a task (flows name their task accounts `task <id>`). */
export const TASK_ACCOUNT = /^task /;

export interface TaskCostEstimate {
  /** Tasks on record (each task of each earlier run). */
  tasks: number;
  /** The median task's usage (by dollars when priced, else by tokens). */
  median: Usage;
}

/**
 * What a task costs in this repository, from the ledger: every task of every earlier run (a run
 * told apart by its `run` label) summed over its sessions, and the median of those sums. Undefined
 * when there is no task on record.
 */
export function medianTaskCost(entries: readonly LedgerEntry[], repo: string): TaskCostEstimate | undefined {
  const tasks = new Map<string, Usage>();
  for (const entry of entries) {
    if (entry.labels?.repo !== repo) continue;
    const task = entry.path.find((name) => TASK_ACCOUNT.test(name));
    if (!task) continue;
    const key = `${entry.labels.run ?? ""}\u0000${entry.labels.spec ?? entry.labels.build ?? ""}\u0000${task}`;
    tasks.set(key, addUsage(tasks.get(key) ?? ZERO_USAGE, entry.usage));
  }
  if (tasks.size === 0) return undefined;
  const priced = [...tasks.values()].every((u) => u.unpriced === 0);
  const sorted = [...tasks.values()].sort((a, b) => (priced ? a.usd - b.usd : totalTokens(a) - totalTokens(b)));
  return { tasks: sorted.length, median: sorted[Math.floor((sorted.length - 1) / 2)] ?? ZERO_USAGE };
}
