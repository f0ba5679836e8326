import { addUsage, ZERO_USAGE, type Usage } from "../../cost/index.ts";
import type { PrSpend } from "../store/document.ts";
import { utcDay } from "./daily-caps.ts";

export { prLabel, readToday } from "./daily-caps.ts";

/*
 * What a PR's work cost, as its document keeps it: today's spend (a new UTC day starts from zero),
 * the total, and each fix attempt's and answered comment's. The ledger's label of a PR, the day
 * and the watcher's daily caps are in daily-caps.ts.
 */

/** Fix attempts and comments whose spend a document keeps (the totals keep everything). */
export const MAX_SPEND_ITEMS = 50;

/** A fix attempt's spend, or an answered comment's (added up over the passes that tried it). */
export type SpendItem = { attempt: number; usage: Usage } | { comment: string; usage: Usage };

/** The document's spend with `usage` added to today's (a new UTC day starts from zero) and the total, and the item's entry set. */
export function addSpend(spend: PrSpend | undefined, usage: Usage, now: Date, item?: SpendItem): PrSpend {
  const day = utcDay(now);
  const at = now.toISOString();
  const today = spend && spend.day === day ? spend.today : ZERO_USAGE;
  let fixAttempts = spend?.fix_attempts ?? [];
  let comments = spend?.comments ?? [];
  if (item && "attempt" in item)
    fixAttempts = [...fixAttempts.filter((a) => a.attempt !== item.attempt), { attempt: item.attempt, at, usage: item.usage }].slice(
      -MAX_SPEND_ITEMS,
    );
  if (item && "comment" in item) {
    const before = comments.find((c) => c.id === item.comment)?.usage ?? ZERO_USAGE;
    comments = [...comments.filter((c) => c.id !== item.comment), { id: item.comment, at, usage: addUsage(before, item.usage) }].slice(
      -MAX_SPEND_ITEMS,
    );
  }
  return { day, today: addUsage(today, usage), total: addUsage(spend?.total ?? ZERO_USAGE, usage), fix_attempts: fixAttempts, comments };
}

/** Today's spend as the document has it (zero when its day is over). */
export function docSpentToday(spend: PrSpend | undefined, now: Date): Usage {
  return spend && spend.day === utcDay(now) ? spend.today : ZERO_USAGE;
}
