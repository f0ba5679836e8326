import { formatError, redact, errorText } from "../../core/index.ts";
import type { Config } from "../../config/index.ts";
import { seenOf } from "../store/seen.ts";
import type { PrInfo } from "../types.ts";
import { isOttoComment, unhandledComments } from "../store/markers.ts";
import { leftOpen } from "./addressed-by.ts";
import { recordComments, type HistoryEntry } from "./comment-history.ts";
import { RESOLUTION } from "./decision.ts";
import { resolveTrust } from "./resolve-trust.ts";
import { botKind, describeSkips, isMine, reviewerComments, selectComments, threadOf, type BotPolicy } from "./select-comments.ts";
import { awaitPeople, handOffFork, type Recorder } from "./hand-off.ts";
import { assertSandbox } from "../../sandbox/index.ts";
import { openAccount } from "./pass-account.ts";
import { answerPass } from "./answer-pass.ts";
import type { CommentFlowDeps, CommentPassInput, CommentPassReport } from "./pass-types.ts";

/*
 * One pass of the comment flow over one PR (the watcher's onComments hook, /otto-pr comments):
 * read every comment, record what is not for otto, record answers found on the forge that a
 * crash kept out of the document, then answer the rest one by one, recording each answer as soon
 * as it is posted. The steps, top to bottom, each file importing only those after it:
 *   1. run-comments.ts  the pass: read the comments, judge their authors (resolve-trust.ts), select
 *                       (select-comments.ts), record what is not for otto and answers found after a
 *                       crash, hand off untrusted comments and forks (hand-off.ts), open the account
 *   2. answer-pass.ts   the working tree: find it, take its work lock, open it, hold a head that
 *                       changes OpenCode configuration
 *   3. answer-each.ts   the per-comment loop: the checks' baseline, one session per comment
 *                       (answer-comment.ts), its spend, a budget stop or a cancel ends the loop
 *   4. pass-account.ts  the money of steps 1 and 3: the pass's account (the watcher's daily caps or
 *                       limits.run_*), each comment's spend, what a budget stop holds
 * What the steps share (deps, input, report) is in pass-types.ts.
 */

export type { CommentFlowDeps, CommentPassInput, CommentPassReport, PassItem } from "./pass-types.ts";

/** Which bot's comments count as review comments on this PR (Azure DevOps MerlinBot). */
export function botPolicy(config: Config, pr: PrInfo): BotPolicy {
  const ado = config.pr.providers.ado;
  return pr.provider === "ado" ? { ids: ado.bot_ids, handle: ado.merlinbot } : { ids: [], handle: false };
}

export async function runCommentPass(deps: CommentFlowDeps, input: CommentPassInput): Promise<CommentPassReport> {
  const { pr, backend, doc } = input;
  // As the fix flow: a person's /otto-pr comments runs under "auto" without a sandbox, the watcher's and CI's passes do not.
  assertSandbox(deps.config.sandbox, deps.env, undefined, deps.manual ? undefined : `The comment flow of ${doc.key} (unattended)`);
  const report: CommentPassReport = { key: doc.key, answered: [], recovered: [], failed: [], skipped: [] };
  const comments = await backend.getComments(pr);
  const me = await backend.currentUser(pr).catch((error: unknown) => {
    deps.log("warn", `could not read the token's user for ${doc.key}; its own replies may be answered`, {
      error: redact(formatError(error), deps.secrets),
    });
    return undefined;
  });
  const base = { comments, seen: seenOf(doc.data), me, bot: botPolicy(deps.config, pr) };
  // Everyone's comments are judged when something is to be answered: the thread shown to the session needs it too.
  const judged =
    reviewerComments(base).length > 0
      ? comments.filter((c) => !isOttoComment(c, me) && !isMine(c, me) && botKind(c, base.bot) === undefined)
      : [];
  for (const c of reviewerComments(base)) {
    if (
      pr.provider === "ado" &&
      deps.config.pr.providers.ado.bot_names.some((n) => n.trim().toLowerCase() === c.author.trim().toLowerCase())
    ) {
      deps.log(
        "warn",
        `comment ${c.id} by ${c.author} is judged like anyone's: the review bot is known by its identity id only (pr.providers.ado.bot_ids); if it is yours, add ${c.authorId ?? "its id"} there`,
      );
    }
  }
  const trust = await resolveTrust({
    backend,
    pr,
    comments: judged,
    policy: deps.config.pr.trusted_authors,
    secrets: deps.secrets,
    log: deps.log,
  });
  const plan = selectComments({ ...base, trust });
  report.skipped = plan.skipped;
  const record: Recorder = (seen, entries, log, failure) =>
    deps.store.update(doc.key, (current) => {
      const failures = { ...current.data.comment_failures };
      if (failure) {
        if (failure.count === undefined) delete failures[failure.id];
        else failures[failure.id] = failure.count;
      }
      const allSeen = { ids: [...current.data.seen_comment_ids, ...seen], before: current.data.seen_before };
      return recordComments(current, {
        seen,
        entries,
        failures,
        unseen: unhandledComments(comments, allSeen, me).length,
        log,
        now: deps.now().toISOString(),
        secrets: deps.secrets,
        comments,
      });
    });

  const recoveredEntries: HistoryEntry[] = [];
  for (const { comment, decision, reply } of plan.recovered) {
    // The crash may have come before the thread was resolved.
    const root = threadOf(comment, comments)[0] ?? comment;
    let action = "Answered in an earlier run (its reply is on the PR); recorded now, not answered again";
    if (leftOpen(reply.body)) action += "; thread left open (agreed, but nothing showed it was addressed)";
    else if (!comment.resolved) {
      await backend.resolveComment(pr, root.id, RESOLUTION[decision]).catch((error: unknown) => {
        action += `; thread not resolved: ${errorText(error)}`;
      });
    }
    recoveredEntries.push({ comment, time: deps.now().toISOString(), decision, action, reply: reply.body });
    report.recovered.push({ comment, decision, action });
  }
  const notForOtto = plan.skipped.filter((s) => s.reason !== "untrusted");
  const quiet = [...notForOtto.map((s) => s.comment.id), ...plan.recovered.map((r) => r.comment.id)];
  if (quiet.length > 0) {
    const log = [
      ...(notForOtto.length > 0 ? [`comments not for otto (${describeSkips(notForOtto)}) recorded as seen`] : []),
      ...plan.recovered.map((r) => `comment ${r.comment.id}: otto's earlier ${r.decision} reply found on the PR; recorded`),
    ];
    await record(quiet, recoveredEntries, log);
  }
  // One notification for all of them: a flood of drive-by comments is one message, not one each.
  await awaitPeople(deps, { pr, comments: plan.skipped.filter((s) => s.reason === "untrusted").map((s) => s.comment), trust, record });
  if (plan.handle.length === 0) return report;
  if (pr.fork === true) {
    await handOffFork(deps, { doc, pr, comments: plan.handle, record, report });
    return report;
  }
  const spend = await openAccount(deps, doc);
  if ("held" in spend) {
    report.held = spend.held;
    return report;
  }
  try {
    await answerPass(deps, { ...input, account: spend, comments, plan: plan.handle, trust, me, base, record, report });
  } finally {
    report.usage = spend.account.usage;
  }
  return report;
}
