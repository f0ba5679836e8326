import { addUsage, appendLedger, ledgerFile, ZERO_USAGE, type Usage } from "../../cost/index.ts";
import type { Env } from "../../core/index.ts";
import { docSpentToday, readToday } from "../context/spend.ts";
import type { PrSpend } from "../store/document.ts";

/*
 * The daily cap of a PR (limits.pr_usd_per_day) is read from the ledger, which a fresh runner
 * does not have. Today's spend the PR's state carries is written into the runner's ledger as one
 * carried-over entry first, less what that ledger already holds for the PR today (a runner that
 * keeps its HOME is not counted twice), so the fix and comment flows see the day's real spend.
 */

export async function carrySpend(env: Env, label: string, spend: PrSpend | undefined, now: Date): Promise<Usage> {
  const carried = docSpentToday(spend, now);
  if (carried.requests === 0 && carried.usd === 0) return ZERO_USAGE;
  const held = (await readToday(env, now)).filter((e) => e.labels.pr === label).reduce((sum, e) => addUsage(sum, e.usage), ZERO_USAGE);
  const usd = Math.max(0, carried.usd - held.usd);
  if (usd === 0) return ZERO_USAGE;
  const usage: Usage = { ...ZERO_USAGE, requests: Math.max(0, carried.requests - held.requests), usd };
  await appendLedger(ledgerFile(env), [
    {
      at: now.toISOString(),
      session: "otto-ci",
      message: "carried-over",
      model: "otto/carried-over",
      path: ["ci carried-over"],
      labels: { pr: label },
      usage,
    },
  ]);
  return usage;
}
