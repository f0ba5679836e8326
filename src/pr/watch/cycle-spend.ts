import { addUsage, ledgerFile, readLedger, type LedgerEntry, type Usage } from "../../cost/index.ts";
import type { Env } from "../../core/index.ts";
import type { CycleReport } from "./cycle.ts";

/*
 * What a watcher cycle's model work cost, per PR: the ledger's entries since the cycle started,
 * by their `labels.pr`. The fixes a cycle starts run beside it (src/pr/watch/fixes.ts), so a
 * scheduled cycle's row shows what was spent by the time it ended; `watch once` waits for its
 * fixes and sums again.
 */

export function cycleSpend(report: CycleReport, entries: readonly LedgerEntry[]): CycleReport {
  const byPr = new Map<string, Usage>();
  for (const entry of entries) {
    const pr = entry.labels.pr;
    if (!pr || entry.at < report.started) continue;
    const before = byPr.get(pr);
    byPr.set(pr, before ? addUsage(before, entry.usage) : entry.usage);
  }
  return {
    ...report,
    results: report.results.map((r) => {
      const usage = r.pr ? byPr.get(r.pr) : undefined;
      return usage ? { ...r, usage } : r;
    }),
  };
}

export async function withCycleSpend(report: CycleReport, env: Env): Promise<CycleReport> {
  return cycleSpend(report, await readLedger(ledgerFile(env), new Date(report.started)));
}
