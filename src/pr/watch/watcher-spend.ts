import type { Env } from "../../core/index.ts";
import type { Config } from "../../config/index.ts";
import { addUsage, formatCost, formatUsage, formatUsd, ZERO_USAGE, type Usage } from "../../cost/index.ts";
import { nextUtcDay, readToday, spentToday } from "../context/daily-caps.ts";

/** Today's (UTC) spend of the PR watcher's work, for `/otto-pr watch status`. */
export interface WatcherSpend {
  now: Date;
  /** Every PR's work today. */
  today: Usage;
  /** By the ledger's PR label. */
  byPr: ReadonlyMap<string, Usage>;
  cap: number;
  prCap: number;
}

export async function watcherSpend(env: Env, limits: Config["limits"], now: Date): Promise<WatcherSpend> {
  const entries = await readToday(env, now);
  const byPr = new Map<string, Usage>();
  for (const entry of entries)
    if (entry.labels.pr) byPr.set(entry.labels.pr, addUsage(byPr.get(entry.labels.pr) ?? ZERO_USAGE, entry.usage));
  return { now, today: spentToday(entries, now), byPr, cap: limits.watcher_usd_per_day, prCap: limits.pr_usd_per_day };
}

/** The status lines: today's spend against the caps, a reached cap, calls the dollar caps cannot count. */
export function spendLines(spend: WatcherSpend): string[] {
  const lines = [
    `Spent today (UTC): ${formatUsage(spend.today)} of the ${formatUsd(spend.cap)} daily cap over all PRs (limits.watcher_usd_per_day); ${formatUsd(spend.prCap)} a day per PR (limits.pr_usd_per_day).`,
  ];
  const resume = nextUtcDay(spend.now).toISOString().replace(".000Z", "Z");
  if (spend.today.usd >= spend.cap)
    lines.push(
      `Daily cap reached (${formatCost(spend.today)} of ${formatUsd(spend.cap)}): no fix or answer starts on any PR until ${resume}, or raise limits.watcher_usd_per_day.`,
    );
  if (spend.today.unpriced > 0)
    lines.push(
      `${spend.today.unpriced} model call(s) today were of a model without a price: the dollar caps cannot count them (their tokens are recorded).`,
    );
  return lines;
}
