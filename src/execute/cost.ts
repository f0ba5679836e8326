import {
  Account,
  currentAccount,
  formatCost,
  formatTokens,
  formatUsage,
  formatUsd,
  knownUsd,
  totalTokens,
  type Budget,
  type TaskCostEstimate,
  type Usage,
} from "../cost/index.ts";

/*
 * What execute and `task run` say about spend: pure formatting of the accounts' usage for history
 * files, tasks.md, the summary and the estimate before a run (docs/cost.md, docs/execute.md).
 */

/** A part of the work in progress (`task 1.2`, `phase 1`, `review gate`): the current account's child, or a root of its own outside any run. */
export function childAccount(name: string): Account {
  return currentAccount()?.child(name) ?? new Account(name);
}

const exact = (n: number): string => n.toLocaleString("en-US");

/** Exact figures for a record: "1,440 tokens (input 1,200, output 240), 2 calls, $0.007200". */
export function usageDetail(usage: Usage): string {
  const parts = [`input ${exact(usage.input)}`, `output ${exact(usage.output)}`];
  if (usage.reasoning) parts.push(`reasoning ${exact(usage.reasoning)}`);
  if (usage.cacheRead) parts.push(`cache read ${exact(usage.cacheRead)}`);
  if (usage.cacheWrite) parts.push(`cache write ${exact(usage.cacheWrite)}`);
  const usd = knownUsd(usage);
  const cost = usd === undefined ? "cost unknown (no price for the model)" : `${usage.unpriced > 0 ? "≥ " : ""}$${usd.toFixed(6)}`;
  return `${exact(totalTokens(usage))} tokens (${parts.join(", ")}), ${usage.requests} call${usage.requests === 1 ? "" : "s"}, ${cost}`;
}

/** The history record's line: "3.62k tokens, $0.0061 — 3,620 tokens (…), 3 calls, $0.006120". */
export function costLine(usage: Usage): string {
  return `${formatUsage(usage)} — ${usageDetail(usage)}`;
}

/** The budget in force, in words: "$1.00", "200k tokens", "$1.00 or 200k tokens", "none". */
export function budgetWords(budget: Budget | undefined): string {
  const parts: string[] = [];
  if (budget?.usd !== undefined) parts.push(formatUsd(budget.usd));
  if (budget?.tokens !== undefined) parts.push(`${formatTokens(budget.tokens)} tokens`);
  return parts.length > 0 ? parts.join(" or ") : "none";
}

/**
 * What comparable runs cost, before a run: "Comparable tasks here cost $0.04 each (median of 7);
 * 3 tasks left ≈ $0.12; budget $1.00". Undefined without records (nothing to compare with).
 */
export function estimateLine(estimate: TaskCostEstimate | undefined, tasksLeft: number, budget: Budget | undefined): string | undefined {
  if (!estimate) return undefined;
  const median = estimate.median;
  const unknown = median.requests > 0 && median.unpriced === median.requests;
  const each = unknown ? `${formatTokens(totalTokens(median))} tokens (cost unknown)` : formatCost(median);
  const times = (n: number): string =>
    unknown ? `${formatTokens(totalTokens(median) * n)} tokens` : `${median.unpriced > 0 ? "≥ " : ""}${formatUsd(median.usd * n)}`;
  const left = `${tasksLeft} task${tasksLeft === 1 ? "" : "s"} left ≈ ${times(tasksLeft)}`;
  return `Comparable tasks here cost ${each} each (median of ${estimate.tasks}); ${left}; budget ${budgetWords(budget)}`;
}

/** How a run stopped by its budget is summarised: the spend against the limit and what it left undone. */
export interface BudgetStopReport {
  /** "spent $0.05 of $0.05" (Account.spentLine). */
  spent: string;
  /** What did not run: "task-002 (pending)", "phase 2 (not committed)", "documentation alignment". */
  undone: string[];
  /** How to go on, e.g. "/otto-spec execute --spec demo --budget <more>". */
  resume: string;
}

export function budgetStopLines(stop: BudgetStopReport): string[] {
  return [
    `Budget reached: ${stop.spent}. No new model call was started; sessions in flight were stopped.`,
    `Left undone: ${stop.undone.length > 0 ? stop.undone.join(", ") : "nothing"}`,
    `Resume: ${stop.resume} (completed tasks are kept; a resumed run gets a new budget)`,
  ];
}
