import { withAccount, type Account } from "../../cost/index.ts";
import { parseDuration } from "../../config/index.ts";
import type { ModelRef } from "../../session/index.ts";
import { checkCommands as commandsOf, resolveChecks } from "../../analysis/index.ts";
import { CLEAN_TREE, headSha, runChecks } from "../../workspace/index.ts";
import type { PrBackend } from "../backend.ts";
import type { PrDocument } from "../store/document.ts";
import type { PrComment, PrInfo } from "../types.ts";
import { answerComment, type AnswerDeps } from "./answer-comment.ts";
import { discardChanges, type PrWork } from "./prepare-workdir.ts";
import { recordFailure, type Recorder } from "./hand-off.ts";
import { budgetStopped, recordSpend, type PassAccount } from "./pass-account.ts";
import type { CommentFlowDeps, CommentPassReport } from "./pass-types.ts";

/*
 * The per-comment loop: the checks' baseline once, then each comment answered in its own session
 * (answer-comment.ts), its spend recorded; a budget stop or a cancel ends the loop, the comments
 * left wait, unseen, for the next pass.
 */

export async function answerEach(
  deps: CommentFlowDeps,
  input: {
    pr: PrInfo;
    backend: PrBackend;
    doc: PrDocument;
    comments: PrComment[];
    handle: PrComment[];
    record: Recorder;
    report: CommentPassReport;
    me: string | undefined;
    work: PrWork;
    model: ModelRef;
    account: PassAccount;
  },
): Promise<void> {
  const { pr, backend, doc, comments, handle, record, report, work, model } = input;
  const { account } = input.account;
  // pr.verify, else the checks found in the PR's tree, run once before any session edits it.
  const checkCommands = commandsOf(await resolveChecks("pr.verify", deps.config.pr.verify, work.dir));
  const verifyTimeoutMs = parseDuration(deps.config.spec.verify_timeout);
  const baseline =
    checkCommands.length > 0
      ? await runChecks(checkCommands, {
          cwd: work.dir,
          timeoutMs: verifyTimeoutMs,
          env: deps.env,
          sandbox: deps.config.sandbox,
          secrets: deps.secrets,
          ...(deps.signal ? { signal: deps.signal } : {}),
        })
      : undefined;
  const answerDeps: AnswerDeps = {
    sessions: deps.sessions,
    model,
    parentID: deps.parentID,
    timeoutMs: parseDuration(deps.config.spec.task_timeout),
    secrets: deps.secrets,
    env: deps.env,
    checkCommands,
    baseline,
    verifyTimeoutMs,
    sandbox: deps.config.sandbox,
    gitHooks: deps.config.git.hooks,
    signal: deps.signal,
    now: deps.now,
    log: deps.log,
    me: input.me,
  };
  for (const [index, comment] of handle.entries()) {
    if (deps.signal?.aborted) break;
    deps.progress?.(`otto pr: answering comment ${index + 1}/${handle.length} (${comment.id} by ${comment.author})`);
    // Where a failed answer is reset to: the tree is clean and pushed here (readyWorkdir, or the previous answer).
    const start = await headSha(work.dir, { env: deps.env });
    const spend = account.child(`comment ${comment.id}`);
    try {
      const answer = await withAccount(spend, () => answerComment(answerDeps, { pr, backend, work, comment, comments }));
      await record(
        [comment.id],
        [{ ...answer.entry, spend: spend.usage }],
        [`comment ${comment.id} by ${comment.author}: ${answer.decision}, ${answer.entry.action}`],
        { id: comment.id, count: undefined },
      );
      report.answered.push({ comment, decision: answer.decision, action: answer.entry.action, usage: spend.usage });
    } catch (error) {
      // Stopped by the budget (a daily cap): not the comment's failure; it waits, unseen, for the next pass.
      if (account.stopped && !outerAborted(deps, account)) {
        if (start) await discardChanges(work.dir, deps.env, start, work.baseline ?? CLEAN_TREE).catch(() => false);
        report.held = await budgetStopped(deps, doc, input.account, comment);
        break;
      }
      // Cancelled (the tool's abort): not the comment's failure; it is answered next time, on a clean tree.
      if (deps.signal?.aborted) {
        if (start) await discardChanges(work.dir, deps.env, start, work.baseline ?? CLEAN_TREE).catch(() => false);
        break;
      }
      await recordFailure(deps, {
        doc,
        pr,
        comment,
        error,
        work: start ? { dir: work.dir, start, baseline: work.baseline ?? CLEAN_TREE } : undefined,
        record,
        report,
      });
      const failed = report.failed.at(-1);
      if (failed?.comment.id === comment.id) failed.usage = spend.usage;
    } finally {
      await recordSpend(deps, doc.key, comment.id, spend.usage);
    }
  }
}

/** Whether the pass was cancelled from outside (the tool's abort, the watcher stopping) rather than by its budget. */
function outerAborted(deps: CommentFlowDeps, account: Account): boolean {
  return deps.signal?.aborted === true && deps.signal.reason !== account.stopped;
}
