import type { TaskList } from "../../../src/spec/index.ts";

/**
 * The number of updates a version of tasks.md holds, when each writer sets its own task's `step`
 * to 0, 1, 2 …: the sum of step + 1. Without lost updates the versions form one chain, so the
 * writes return the totals 1 … N, each once; a write made from a stale read repeats a total.
 */
export function totalSteps(list: TaskList): number {
  return list.tasks.reduce((sum, t) => sum + (t.extra.step === undefined ? 0 : Number(t.extra.step) + 1), 0);
}
