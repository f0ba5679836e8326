import {
  formatCost,
  formatTokenCount,
  formatTokens,
  formatUsage,
  formatUsd,
  medianTaskCost,
  subtractUsage,
  sumUsage,
  totalTokens,
  type Account,
  type Budget,
  type LedgerEntry,
  type Usage,
} from "../cost/index.ts";
import type { IterationSpend } from "./state.ts";
import type { BuildTarget } from "./state.ts";

/* What a build costs, as the summary and the start of a run show it. Pure. */

/** "$1.00", "200k tokens", "$1.00 or 200k tokens", or that there is none. */
export function budgetText(budget: Pick<Budget, "usd" | "tokens"> | undefined): string {
  const parts = [
    budget?.usd !== undefined ? formatUsd(budget.usd) : undefined,
    budget?.tokens !== undefined ? `${formatTokens(budget.tokens)} tokens` : undefined,
  ].filter((part): part is string => part !== undefined);
  return parts.length ? parts.join(" or ") : "none (set one with --budget, --max-tokens or limits.run_usd)";
}

/** The summary's first line: what the run spent, and of which budget. */
export function spentLine(account: Pick<Account, "usage" | "budget">): string {
  return `spent ${formatUsage(account.usage)}${account.budget ? ` of a budget of ${budgetText(account.budget)}` : ""}`;
}

/**
 * What comparable tasks cost in this repository (the median task on the ledger) times the tasks
 * left, beside the budget in force; undefined when the ledger has no task of this repository.
 */
export function costBeforeRun(
  entries: readonly LedgerEntry[],
  repo: string,
  budget: Pick<Budget, "usd" | "tokens"> | undefined,
  left: number,
): string | undefined {
  const estimate = medianTaskCost(entries, repo);
  if (!estimate || left <= 0) return undefined;
  const each = estimate.median;
  const priced = each.unpriced === 0;
  const one = priced ? formatUsd(each.usd) : `${formatTokens(totalTokens(each))} tokens`;
  const all = priced ? formatUsd(each.usd * left) : `${formatTokens(totalTokens(each) * left)} tokens`;
  return `comparable tasks here cost ${one} each (the median of ${estimate.tasks} on record): ${left} task(s) left ≈ ${all}; budget in force: ${budgetText(budget)}.`;
}

/** One row per turn of this run, then the calls between turns (if any) and the total. */
export function spendTable(results: ReadonlyArray<{ target: BuildTarget; iterations: readonly IterationSpend[] }>, total: Usage): string {
  const row = (cells: string[]): string => `| ${cells.join(" | ")} |`;
  const usageCells = (usage: Usage): string[] => [formatTokenCount(usage), formatCost(usage)];
  const rows: string[] = [];
  for (const r of results)
    for (const i of r.iterations) rows.push(row([r.target.name, String(i.iteration), i.task ?? "verify", ...usageCells(i.usage)]));
  // Calls counted after a turn ended (its session's reconciliation at close): rows must add up to the total.
  const rest = subtractUsage(total, sumUsage(results.flatMap((r) => r.iterations.map((i) => i.usage))));
  if (rest.requests !== 0 || totalTokens(rest) !== 0 || rest.usd !== 0) rows.push(row(["", "-", "between turns", ...usageCells(rest)]));
  return [
    row(["target", "turn", "task", "tokens", "cost"]),
    "|---|---|---|---|---|",
    ...rows,
    row(["**total**", "", "", ...usageCells(total)]),
  ].join("\n");
}
