import { isOttoError } from "../../core/index.ts";
import type { ModelRef } from "../../session/index.ts";
import { describeHolder, withWorkLock } from "../../workspace/index.ts";
import type { PrBackend } from "../backend.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import { configChanges, holdText, notifyHold } from "../context/config-hold.ts";
import type { PrComment, PrInfo } from "../types.ts";
import { locateWorkdir, openWorkTree, type PrWork } from "./prepare-workdir.ts";
import { trustedForContext, type BotPolicy } from "./select-comments.ts";
import type { TrustDecision } from "./trust.ts";
import { recordFailure, type Recorder } from "./hand-off.ts";
import { answerEach } from "./answer-each.ts";
import type { PassAccount } from "./pass-account.ts";
import type { CommentFlowDeps, CommentPassInput, CommentPassReport } from "./pass-types.ts";

/*
 * The comments to answer, in the PR's working tree: find the tree, take its work lock, open the
 * tree (a temporary worktree when a person's checkout is dirty), hold a head that changes OpenCode
 * configuration, then hand the comments to answerEach (answer-each.ts).
 */

/** Setup errors that are a person's working state (src/pr/comments/prepare-workdir.ts, src/repo), retried without counting. */
const WAIT_FOR_PERSON = new Set(["worktree_dirty", "pr_branch_not_checked_out", "hands_off_branch", "worktree_conflict", "pr_local_ahead"]);

export async function answerPass(
  deps: CommentFlowDeps,
  input: CommentPassInput & {
    account: PassAccount;
    comments: PrComment[];
    plan: PrComment[];
    trust: ReadonlyMap<string, TrustDecision>;
    me: string | undefined;
    base: { bot: BotPolicy };
    record: Recorder;
    report: CommentPassReport;
  },
): Promise<void> {
  const { pr, backend, doc, comments, trust, me, base, record, report } = input;
  const plan = { handle: input.plan };
  // A budget stop aborts the session in flight and the checks (the runner aborts the sessions too).
  deps = { ...deps, signal: deps.signal ? AbortSignal.any([deps.signal, input.account.account.signal]) : input.account.account.signal };

  const setupFailed = async (error: unknown): Promise<void> => {
    // A dirty or switched clone is a person at work: wait for them. Anything else would fail every
    // poll forever, so it counts against each comment like a failed answer.
    if (!isOttoError(error) || WAIT_FOR_PERSON.has(error.code)) throw error;
    for (const comment of plan.handle) await recordFailure(deps, { doc, pr, comment, error, record, report });
  };
  let located: PrWork;
  try {
    located = await locateWorkdir({ pr, repos: deps.config.repos, cwd: deps.cwd, env: deps.env });
  } catch (error) {
    await setupFailed(error);
    return;
  }
  // A fix or the review loop (this process or another) may be editing the tree: answer next pass.
  // The session sees the thread, but never the words of someone otto does not act for.
  const shown = comments.map((c) =>
    trustedForContext(c, trust, me, base.bot) ? c : { ...c, body: `(not shown: otto does not act on comments by ${c.author})` },
  );
  const held = await withWorkLock(
    located.dir,
    `the comment flow of ${doc.key}`,
    () =>
      answerAll(deps, {
        pr,
        backend,
        doc,
        comments: shown,
        handle: plan.handle,
        located,
        record,
        report,
        setupFailed,
        me,
        account: input.account,
      }),
    {
      env: deps.env,
      now: deps.now,
    },
  );
  if (held.busy) {
    report.busy = describeHolder(held.holder);
    deps.log("info", `comments on ${doc.key} deferred to the next pass: ${located.dir} is busy with ${report.busy}`);
  }
}

/** Answers the comments one by one in the (locked) working tree. */
async function answerAll(
  deps: CommentFlowDeps,
  input: {
    pr: PrInfo;
    backend: PrBackend;
    doc: PrDocument;
    comments: PrComment[];
    handle: PrComment[];
    located: PrWork;
    record: Recorder;
    report: CommentPassReport;
    setupFailed: (error: unknown) => Promise<void>;
    me: string | undefined;
    account: PassAccount;
  },
): Promise<void> {
  const { pr } = input;
  let work: PrWork;
  let model: ModelRef;
  let release: () => Promise<string | undefined> = async () => undefined;
  try {
    ({ work, release } = await openWorkTree(input.located, deps.env, `otto-comments-${pr.number}`));
    // Before the first session: OpenCode loads the tree's configuration when otto opens one there.
    if (await heldForConfig(deps, input, work)) {
      await release();
      return;
    }
    model = await deps.model();
  } catch (error) {
    await release();
    await input.setupFailed(error);
    return;
  }
  try {
    await answerEach(deps, { ...input, work, model });
  } finally {
    const problem = await release();
    if (problem) deps.log("warn", problem);
  }
}

/**
 * A head that changes OpenCode configuration (src/pr/context/config-hold.ts): the watcher answers nothing
 * (the comments stay unseen, for after a person's /otto-pr fix), notes it and tells a person once
 * per head; a run by hand proceeds and records the head as accepted.
 */
async function heldForConfig(
  deps: CommentFlowDeps,
  input: { pr: PrInfo; doc: PrDocument; report: CommentPassReport },
  work: PrWork,
): Promise<boolean> {
  const { pr, doc } = input;
  const current = (await deps.store.read(doc.key)) ?? doc;
  const config = await configChanges({ dir: work.dir, remote: work.remote, pr, state: current.data, env: deps.env });
  if (config.files.length === 0) return false;
  const time = deps.now().toISOString();
  if (deps.manual) {
    await deps.store.update(doc.key, (d) => ({
      ...d,
      data: { ...d.data, config_ok_sha: config.head },
      log: [
        ...d.log,
        logLine(
          time,
          `/otto-pr comments by hand on ${config.head.slice(0, 7)}, which changes OpenCode configuration (${config.files.join(", ")}): accepted; otto works on this head`,
        ),
      ],
    }));
    return false;
  }
  const { title, text, log } = holdText(pr, config, "answer reviewer comments", `/otto-pr fix ${doc.data.id}`);
  const notify = notifyHold(current.data, pr.headSha);
  await deps.store.update(doc.key, (d) => ({
    ...d,
    data: { ...d.data, ...(notify ? { config_hold_sha: pr.headSha } : {}) },
    log: notify ? [...d.log, logLine(time, log)] : d.log,
  }));
  input.report.held = text;
  if (notify)
    await deps.notify({ kind: "human_needed", title, text, url: pr.url, facts: { Repository: pr.repo, Branch: pr.sourceBranch } });
  return true;
}
