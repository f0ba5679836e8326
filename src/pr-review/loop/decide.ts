import { isBlocking } from "./findings.ts";
import type { Consensus, Finding, ReviewState } from "./schemas.ts";

export interface RoundFacts {
  round: number;
  maxRounds: number;
  consensus: Consensus;
  reviewState: ReviewState;
  /** The fix payload's issuesToFix (P0–P2 code findings, not stuck). */
  toFix: number;
  stuck: number;
  threads: readonly Finding[];
  canPush: boolean;
  /** Why the branch cannot be pushed, when it cannot. */
  pushBlocker?: string;
}

export type Decision =
  | { action: "approved"; next: string }
  | { action: "stop"; next: string; reason: string }
  /** Fix, then stop with `stopAfter` when set, else review again. */
  | { action: "fix"; next: string; stopAfter?: string };

/** What a round leads to (docs/pr-review-loop.md, "When the loop stops"). Pure. */
export function decideRound(f: RoundFacts): Decision {
  const blockingThreads = f.threads.filter((t) => isBlocking(t.priority)).length;
  if (f.consensus === "approve") return { action: "approved", next: "nothing to fix: the loop ends here, approved." };
  if (f.toFix === 0) {
    const why = [
      f.stuck > 0 ? `${f.stuck} stuck finding(s) need a person (the fix agent reported them fixed, the reviewers still see them)` : "",
      blockingThreads > 0 ? `${blockingThreads} unresolved review comment(s) need a reply or resolution` : "",
      f.reviewState.hasChangesRequested
        ? `changes requested by ${f.reviewState.changesRequestedBy.map((b) => `@${b.login}`).join(", ")} stand until withdrawn (a new review, a dismissal or a changed vote)`
        : "",
    ].filter(Boolean);
    const reason = `manual intervention required: ${why.join("; ") || "nothing otto can fix"}.`;
    return { action: "stop", next: reason, reason };
  }
  if (!f.canPush) {
    const reason = `review only: ${f.toFix} finding(s) to fix, but otto cannot push to the PR's branch (${f.pushBlocker ?? "unknown reason"}).`;
    return { action: "stop", next: reason, reason };
  }
  const stops = [
    blockingThreads > 0 ? `manual resolution required: ${blockingThreads} unresolved review comment(s) are left to people` : "",
    f.round >= f.maxRounds ? `max rounds reached (${f.maxRounds}): the fixes of this round are not reviewed again` : "",
  ].filter(Boolean);
  const stopAfter = stops.length > 0 ? `${stops.join("; ")}.` : undefined;
  const next = `fixing ${f.toFix} finding(s)${stopAfter ? `, then stopping: ${stopAfter}` : `, then review round ${f.round + 1}.`}`;
  return stopAfter ? { action: "fix", next, stopAfter } : { action: "fix", next };
}
