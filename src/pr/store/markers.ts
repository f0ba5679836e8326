import { authoredBy, type PrComment } from "../types.ts";
import { seenTest, type SeenInput } from "./seen.ts";

/*
 * Otto's marks on a PR and what they say about its comments and its fix: shared by the watcher,
 * the fix and comment flows, the backends' workflow steps and otto's CI jobs, so they live below
 * all of them.
 */

/** Marks otto's own comments, so they never count as reviewer comments. */
export const OTTO_MARKER = "<!-- otto -->";

/**
 * A fix older than this crashed or hangs: polls treat the PR as failed again and the next trigger
 * takes it over. Two hours: two fix sessions at the default 30 min task timeout, a rebase, checks.
 */
export const FIX_STALE_MS = 2 * 60 * 60 * 1000;

/**
 * Otto's own comment: its marker, posted by the token's user when that user is known (`me`), so a
 * reviewer who pastes the marker is still answered and cannot pass for otto. Unknown: the marker alone.
 */
export function isOttoComment(comment: PrComment, me?: string): boolean {
  return comment.body.includes(OTTO_MARKER) && (me === undefined || authoredBy(comment, me));
}

/** Reviewer comments the comment flow has not handled: not seen, not resolved, not otto's own. */
export function unhandledComments(comments: readonly PrComment[], seenComments: SeenInput, me?: string): PrComment[] {
  const seen = seenTest(seenComments);
  return comments.filter((c) => !seen(c) && !c.resolved && !isOttoComment(c, me));
}
