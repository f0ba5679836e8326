export { Account, isBudgetStop, type AccountLabels, type Budget } from "./account.ts";
export { runBudget, type BudgetFlags, type RunLimits } from "./budget.ts";
export { medianTaskCost, TASK_ACCOUNT, type TaskCostEstimate } from "./estimate.ts";
export { appendLedger, ledgerFile, readLedger, type LedgerEntry } from "./ledger.ts";
export { Meter, type MeterDeps, type MeteredMessage } from "./meter.ts";
export { priceLookup, type ProvidersClient } from "./prices.ts";
export { currentAccount, withAccount } from "./scope.ts";
export { UsageRecord } from "./schema.ts";
export {
  addUsage,
  formatCost,
  formatTokenCount,
  formatTokens,
  formatUsage,
  formatUsd,
  knownUsd,
  messageUsage,
  subtractUsage,
  sumUsage,
  totalTokens,
  ZERO_USAGE,
  type Usage,
} from "./usage.ts";
export {
  buildReport,
  parseReportKey,
  parseSince,
  renderReport,
  reportJson,
  REPORT_KEYS,
  type CostReport,
  type ReportKey,
  type ReportRow,
  type VerdictSaving,
} from "./report.ts";
