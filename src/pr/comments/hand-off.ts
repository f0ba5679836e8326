import { formatError, redact } from "../../core/index.ts";
import type { PrDocument } from "../store/document.ts";
import type { PrComment, PrInfo } from "../types.ts";
import type { HistoryEntry } from "./comment-history.ts";
import type { TreeSnapshot } from "../../workspace/index.ts";
import { discardChanges } from "./prepare-workdir.ts";
import type { CommentFlowDeps, CommentPassReport } from "./run-comments.ts";
import { distrustText, type TrustDecision } from "./trust.ts";

/*
 * What the comment flow hands to a person instead of answering: a comment that failed too often,
 * one by an author otto does not act for, and the comments of a PR whose branch is in a fork.
 * Each is recorded in the PR document, so it is not looked at again, and notified once.
 */

/** Failed answers to one comment before otto records it as seen and asks a human. */
export const MAX_COMMENT_FAILURES = 2;


/** Writes seen ids, history entries and log lines (and one comment's failure count; undefined clears it). */
export type Recorder = (seen: string[], entries: HistoryEntry[], log: string[], failure?: { id: string; count: number | undefined }) => Promise<PrDocument | undefined>;


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
  const message = redact(formatError(input.error).replace(/^Error: /, ""), deps.secrets);
  deps.log("warn", `answering comment ${comment.id} on ${doc.key} failed`, { error: message });
  // Whatever the session left is not an answer anyone agreed to.
  if (input.work) await discardChanges(input.work.dir, deps.env, input.work.start, input.work.baseline).catch(() => false);
  const count = (doc.data.comment_failures[comment.id] ?? 0) + 1;
  const giveUp = count >= MAX_COMMENT_FAILURES;
  const action = giveUp ? `Failed ${count} times, gave up (a human should answer): ${message}` : `Failed (attempt ${count} of ${MAX_COMMENT_FAILURES}, retried next cycle): ${message}`;
  const entry: HistoryEntry = { comment, time: deps.now().toISOString(), action };
  await input.record(giveUp ? [comment.id] : [], [entry], [`comment ${comment.id}: ${action}`], { id: comment.id, count: giveUp ? undefined : count });
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


/**
 * A comment by someone otto does not act for: recorded as seen (never looked at again), one log
 * line, one notification. No session reads it and nothing is posted.
 */
export async function awaitPerson(deps: CommentFlowDeps, input: { pr: PrInfo; comment: PrComment; decision: TrustDecision | undefined; record: Recorder }): Promise<void> {
  const { pr, comment } = input;
  const why = distrustText(comment, input.decision?.reason ?? "lookup_failed", pr.provider);
  await input.record([comment.id], [], [`comment ${comment.id} by ${comment.author} awaits a person: ${why}; otto does not act on it`]);
  await deps.notify({
    kind: "human_needed",
    title: `PR #${pr.number}: a comment by ${comment.author} awaits a person`,
    text: `${why}, so otto did not act on the comment: no session read it and nothing was posted. Answer it yourself, or add the author to pr.trusted_authors.`,
    url: comment.url ?? pr.url,
    facts: { Repository: pr.repo, Comment: comment.id },
  });
}


/** A fork's branch is not otto's to push to (the fix flow refuses it too): record the comments and ask a human, once. */
export async function handOffFork(deps: CommentFlowDeps, input: { doc: PrDocument; pr: PrInfo; comments: PrComment[]; record: Recorder; report: CommentPassReport }): Promise<void> {
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
