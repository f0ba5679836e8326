import type { Notify, NotifyReport } from "./types.ts";

/**
 * Notifications otto sends about one PR in one watcher cycle, at most. A cycle has a handful of
 * reasons to notify about a PR (green, the fix gave up, comments that await a person, a comment
 * otto could not answer); past this, whatever happens on the PR is flooding someone's phone, and
 * the PR document's log has the rest.
 */
export const MAX_NOTIFICATIONS_PER_PR_CYCLE = 3;

export interface LimitOptions {
  max: number;
  /** Named in the last notification sent and in the log line of each one held back ("PR #42"). */
  subject: string;
  /** Told about each notification held back. */
  log?: (message: string) => void;
}

/**
 * `notify` that sends at most `max` events; the last one sent says that more are held back, and
 * later ones are dropped (reported as not delivered, never thrown). One limiter per scope (a PR in
 * a cycle): it keeps its count in the closure.
 */
export function limitNotify(notify: Notify, options: LimitOptions): Notify {
  let sent = 0;
  return async (event): Promise<NotifyReport> => {
    if (sent >= options.max) {
      options.log?.(`notification held back (${options.max} already sent about ${options.subject} this cycle): ${event.title}`);
      return {
        delivered: [],
        failed: [{ channel: "limit", error: `held back: ${options.max} notifications already sent about ${options.subject} this cycle` }],
      };
    }
    sent += 1;
    if (sent < options.max) return notify(event);
    const note = `Otto sends at most ${options.max} notifications about ${options.subject} per watcher cycle; anything more this cycle is in the PR's log (/otto-pr show).`;
    return notify({ ...event, text: `${event.text}\n\n${note}` });
  };
}
