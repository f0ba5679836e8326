import { redact, errorText } from "../../core/index.ts";
import type { PrDocument } from "../store/document.ts";
import type { PrComment, PrInfo } from "../types.ts";
import type { HistoryEntry } from "./comment-history.ts";
import type { TreeSnapshot } from "../../workspace/index.ts";
import { discardChanges } from "./prepare-workdir.ts";
import type { CommentFlowDeps, CommentPassReport } from "./pass-types.ts";
import { distrustText, type TrustDecision } from "./trust.ts";

/*
 * What the comment flow hands to a person instead of answering: a comment that failed too often,
 * one by an author otto does not act for, and the comments of a PR whose branch is in a fork.
 * Each is recorded in the PR document, so it is not looked at again, and notified once.
 */

/** Failed answers to one comment before otto records it as seen and asks a human. */
export const MAX_COMMENT_FAILURES = 2;

/** Writes seen ids, history entries and log lines (and one comment's failure count; undefined clears it). */
export type Recorder = (
  seen: string[],
  entries: HistoryEntry[],
  log: string[],
  failure?: { id: string; count: number | undefined },
) => Promise<PrDocument | undefined>;

export async function recordFailure(
  deps: CommentFlowDeps,
  input: {
    doc: PrDocument;
    pr: PrInfo;
    comment: PrComment;
    error: unknown;
    /** The working tree to reset, and HEAD before the answer, when the answer got that far. */
    work?: { dir: string; start: string; baseline: TreeSnapshot } | undefined;
    record: Recorder;
    report: CommentPassReport;
  },
): Promise<void> {
  const { doc, pr, comment, report } = input;
  const message = redact(errorText(input.error), deps.secrets);
  deps.log("warn", `answering comment ${comment.id} on ${doc.key} failed`, { error: message });
  // Whatever the session left is not an answer anyone agreed to.
  if (input.work) await discardChanges(input.work.dir, deps.env, input.work.start, input.work.baseline).catch(() => false);
  const count = (doc.data.comment_failures[comment.id] ?? 0) + 1;
  const giveUp = count >= MAX_COMMENT_FAILURES;
  const action = giveUp
    ? `Failed ${count} times, gave up (a human should answer): ${message}`
    : `Failed (attempt ${count} of ${MAX_COMMENT_FAILURES}, retried next cycle): ${message}`;
  const entry: HistoryEntry = { comment, time: deps.now().toISOString(), action };
  await input.record(giveUp ? [comment.id] : [], [entry], [`comment ${comment.id}: ${action}`], {
    id: comment.id,
    count: giveUp ? undefined : count,
  });
  report.failed.push({ comment, action });
  if (giveUp) {
    await deps.notify({
      kind: "human_needed",
      title: `PR #${pr.number}: otto could not answer a comment by ${comment.author}`,
      text: `${action}\n\n> ${comment.body.split("\n").slice(0, 3).join("\n> ")}`,
      url: comment.url ?? pr.url,
      facts: { Repository: pr.repo, Comment: comment.id },
    });
  }
}

/** Log lines naming a comment that awaits a person, per pass: a flood of comments is one summary line beyond these. */
export const MAX_AWAIT_LINES = 20;
/** Logins named in the notification's title; the rest are counted. */
const MAX_TITLE_LOGINS = 5;

/** "a, b and c", or "a, b, c, d, e and 3 others". */
function listLogins(logins: readonly string[]): string {
  const shown = logins.slice(0, MAX_TITLE_LOGINS);
  const rest = logins.length - shown.length;
  if (rest > 0) return `${shown.join(", ")} and ${rest} other${rest === 1 ? "" : "s"}`;
  return shown.length <= 1 ? (shown[0] ?? "") : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1) ?? ""}`;
}

/**
 * Comments by people otto does not act for, all of one pass: recorded as seen (never looked at
 * again), one log line each (up to MAX_AWAIT_LINES, then one for the rest), and one notification
 * for all of them, so anyone who can comment cannot make otto send a notification per comment.
 * No session reads them and nothing is posted.
 */
export async function awaitPeople(
  deps: CommentFlowDeps,
  input: { pr: PrInfo; comments: readonly PrComment[]; trust: ReadonlyMap<string, TrustDecision>; record: Recorder },
): Promise<void> {
  const { pr, comments } = input;
  if (comments.length === 0) return;
  const why = comments.map((comment) => distrustText(comment, input.trust.get(comment.id)?.reason ?? "lookup_failed", pr.provider));
  const lines = comments
    .slice(0, MAX_AWAIT_LINES)
    .map((comment, i) => `comment ${comment.id} by ${comment.author} awaits a person: ${why[i] ?? ""}; otto does not act on it`);
  const more = comments.slice(MAX_AWAIT_LINES);
  if (more.length > 0)
    lines.push(
      `${more.length} more comment(s) by ${listLogins([...new Set(more.map((c) => c.author))])} await a person; otto does not act on them`,
    );
  await input.record(
    comments.map((c) => c.id),
    [],
    lines,
  );
  const logins = [...new Set(comments.map((c) => c.author))];
  const first = comments[0];
  const title =
    comments.length === 1
      ? `PR #${pr.number}: a comment by ${first?.author ?? ""} awaits a person`
      : `PR #${pr.number}: ${comments.length} comments by ${listLogins(logins)} await a person`;
  const reasons = [...new Set(why)].slice(0, MAX_TITLE_LOGINS);
  const subject = comments.length === 1 ? "the comment" : "these comments";
  await deps.notify({
    kind: "human_needed",
    title,
    text: `${reasons.join("; ")}, so otto did not act on ${subject}: no session read ${comments.length === 1 ? "it" : "them"} and nothing was posted. Answer ${comments.length === 1 ? "it" : "them"} yourself, or add the author to pr.trusted_authors.`,
    url: comments.length === 1 ? (first?.url ?? pr.url) : pr.url,
    facts: { Repository: pr.repo, [comments.length === 1 ? "Comment" : "Comments"]: listIds(comments) },
  });
}

/** The ids of `comments`, at most 10, the rest counted. */
function listIds(comments: readonly PrComment[]): string {
  const ids = comments.slice(0, 10).map((c) => c.id);
  return comments.length > ids.length ? `${ids.join(", ")} and ${comments.length - ids.length} more` : ids.join(", ");
}

/** A fork's branch is not otto's to push to (the fix flow refuses it too): record the comments and ask a human, once. */
export async function handOffFork(
  deps: CommentFlowDeps,
  input: { doc: PrDocument; pr: PrInfo; comments: PrComment[]; record: Recorder; report: CommentPassReport },
): Promise<void> {
  const { pr, comments } = input;
  const action = `Not answered: the PR's branch is in a fork${pr.headRepo ? ` (${pr.headRepo})` : ""} otto cannot push to`;
  const time = deps.now().toISOString();
  await input.record(
    comments.map((c) => c.id),
    comments.map((comment) => ({ comment, time, action })),
    [`${comments.length} reviewer comment(s) not answered: the head branch is in a fork`],
  );
  for (const comment of comments) input.report.failed.push({ comment, action });
  await deps.notify({
    kind: "human_needed",
    title: `PR #${pr.number}: ${comments.length} reviewer comment(s) to answer by hand`,
    text: `${action}.`,
    url: pr.url,
    facts: { Repository: pr.repo, Comments: comments.map((c) => c.id).join(", ") },
  });
}
