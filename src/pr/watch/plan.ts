import { redact } from "../../core/index.ts";
import { FINAL_STATUSES, type PrDocument, type PrFrontmatter } from "../store/document.ts";

/*
 * When the watcher polls a PR and how it backs off after errors. What one poll means for the
 * document is planRefresh (src/pr/store/refresh.ts).
 */

/** Skipped polls after `errors` failures in a row: none after the first, then doubling up to an hour. */
export function backoffMs(errors: number, intervalMs: number): number {
  if (errors <= 1) return 0;
  return Math.min(intervalMs * 2 ** (errors - 1), 60 * 60 * 1000);
}

export function planError(doc: PrDocument, error: string, now: Date, intervalMs: number): { data: PrFrontmatter; log: string[] } {
  const errors = doc.data.errors + 1;
  const wait = backoffMs(errors, intervalMs);
  // Half an interval of slack so the retry falls on a cycle, not just after one.
  const retry = wait > 0 ? new Date(now.getTime() + wait - intervalMs / 2).toISOString() : undefined;
  const message = redact(error).slice(0, 500);
  return {
    data: { ...doc.data, errors, last_error: message, retry_at: retry, last_checked: now.toISOString() },
    log: [`poll failed (${errors} in a row${retry ? `, next try after ${retry}` : ""}): ${message}`],
  };
}

/** Whether a cycle polls this PR now: not merged/closed/abandoned, not backing off (unless forced). */
export function shouldPoll(doc: PrDocument, now: Date, force: boolean): "poll" | "final" | "backoff" {
  if (FINAL_STATUSES.includes(doc.data.status)) return "final";
  if (!force && doc.data.retry_at && Date.parse(doc.data.retry_at) > now.getTime()) return "backoff";
  return "poll";
}
