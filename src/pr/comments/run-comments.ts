import { formatError, isOttoError, redact, type Env, errorText } from "../../core/index.ts";
import type { Config } from "../../config/index.ts";
import { parseDuration } from "../../config/index.ts";
import type { Notify } from "../../notify/index.ts";
import type { ModelRef, SessionRunner } from "../../session/index.ts";
import { checkCommands as commandsOf, resolveChecks } from "../../analysis/index.ts";
import { CLEAN_TREE, headSha, runChecks } from "../../workspace/index.ts";
import type { PrBackend } from "../backend.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import { configChanges, holdText, notifyHold } from "../context/config-hold.ts";
import type { PrStore } from "../store/store.ts";
import { seenOf } from "../store/seen.ts";
import type { PrComment, PrInfo } from "../types.ts";
import { isOttoComment, unhandledComments } from "../store/markers.ts";
import { leftOpen } from "./addressed-by.ts";
import { answerComment, type AnswerDeps } from "./answer-comment.ts";
import { recordComments, type HistoryEntry } from "./comment-history.ts";
import { RESOLUTION, type Decision } from "./decision.ts";
import { discardChanges, locateWorkdir, openWorkTree, type PrWork } from "./prepare-workdir.ts";
import { describeHolder, withWorkLock } from "../../workspace/index.ts";
import { resolveTrust } from "./resolve-trust.ts";
import { botKind, isMine, reviewerComments, selectComments, threadOf, type BotPolicy, type SkipReason } from "./select-comments.ts";
import type { TrustDecision } from "./trust.ts";
import { awaitPeople, handOffFork, recordFailure, type Recorder } from "./hand-off.ts";
import { assertSandbox } from "../../sandbox/index.ts";
import { Account, runBudget, withAccount, type Usage } from "../../cost/index.ts";
import { addSpend, capReached, prLabel, readCaps, type CapCheck, type DailyCaps } from "../context/spend.ts";
import { holdAtCap, releaseCapHold, warnUnpriced, type CapHoldDeps } from "../context/cap-hold.ts";

/*
 * One pass of the comment flow over one PR (the watcher's onComments hook, /otto-pr comments):
 * read every comment, record what is not for otto, record answers found on the forge that a
 * crash kept out of the document, then answer the rest one by one, recording each answer as soon
 * as it is posted.
 */

/** Setup errors that are a person's working state (src/pr/comments/prepare-workdir.ts, src/repo), retried without counting. */
const WAIT_FOR_PERSON = new Set(["worktree_dirty", "pr_branch_not_checked_out", "hands_off_branch", "worktree_conflict", "pr_local_ahead"]);

export interface CommentFlowDeps {
  store: PrStore;
  sessions: SessionRunner;
  /** The primary model; asked for only when a comment is answered. */
  model: () => Promise<ModelRef>;
  /** The invoking session (commands); the watcher has none. */
  parentID?: string | undefined;
  /** Where the command runs: the PR's repository when no tracked repo matches it. */
  cwd: string;
  config: Config;
  secrets: readonly string[];
  env: Env;
  notify: Notify;
  now: () => Date;
  log: (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => void;
  signal?: AbortSignal | undefined;
  progress?: (message: string) => void;
  /** A person's /otto-pr comments: proceeds on a head that changes OpenCode configuration (src/pr/context/config-hold.ts). */
  manual?: boolean;
}

export interface CommentPassInput {
  doc: PrDocument;
  pr: PrInfo;
  backend: PrBackend;
}

export interface PassItem {
  comment: PrComment;
  decision?: Decision | undefined;
  action: string;
  /** What answering it cost (absent for what no session worked on). */
  usage?: Usage | undefined;
}

export interface CommentPassReport {
  key: string;
  answered: PassItem[];
  recovered: PassItem[];
  failed: PassItem[];
  skipped: Array<{ comment: PrComment; reason: SkipReason }>;
  /** Who held the PR's working tree when this pass wanted it: nothing was answered, the next pass tries again. */
  busy?: string;
  /** Why nothing (more) was answered: the head changes OpenCode configuration and waits for a person (src/pr/context/config-hold.ts), or a daily cap / budget is reached. */
  held?: string;
  /** What the pass's model calls cost. */
  usage?: Usage;
}

/** Which bot's comments count as review comments on this PR (Azure DevOps MerlinBot). */
export function botPolicy(config: Config, pr: PrInfo): BotPolicy {
  const ado = config.pr.providers.ado;
  return pr.provider === "ado" ? { ids: ado.bot_ids, handle: ado.merlinbot } : { ids: [], handle: false };
}

export async function runCommentPass(deps: CommentFlowDeps, input: CommentPassInput): Promise<CommentPassReport> {
  const { pr, backend, doc } = input;
  assertSandbox(deps.config.sandbox, deps.env);
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

function capDeps(deps: CommentFlowDeps): CapHoldDeps {
  return { store: deps.store, notify: deps.notify, env: deps.env, now: deps.now, log: deps.log };
}

interface PassAccount {
  account: Account;
  /** The watcher's caps when it opened (for which one a budget stop reached). */
  check?: Extract<CapCheck, { kind: "open" }>;
  caps: DailyCaps;
}

/**
 * The pass's account (labels repo, pr, run): the watcher's gets what is left of its daily caps as
 * its budget, or no account at all when a cap is reached (the comments wait, unseen); a pass by
 * hand gets limits.run_usd / run_tokens.
 */
async function openAccount(deps: CommentFlowDeps, doc: PrDocument): Promise<PassAccount | { held: string }> {
  const label = prLabel(doc.data);
  const limits = deps.config.limits;
  const caps: DailyCaps = { prUsd: limits.pr_usd_per_day, watcherUsd: limits.watcher_usd_per_day };
  let check: Extract<CapCheck, { kind: "open" }> | undefined;
  if (!deps.manual) {
    const found = await readCaps(deps.env, caps, label, deps.now());
    if (found.kind !== "open") return { held: await holdAtCap(capDeps(deps), doc, label, found, "comments") };
    check = found;
    if (doc.data.cap_hold) await releaseCapHold(deps.store, doc.key);
    await warnUnpriced(capDeps(deps), found.unpriced);
  }
  const budget = check
    ? check.budget
    : runBudget(
        {},
        { usd: limits.run_usd, tokens: limits.run_tokens },
        `Run /otto-pr comments ${doc.data.id} again: the comments not answered yet are answered then.`,
      );
  const account = new Account(`pr comments ${doc.key}`, {
    labels: { repo: doc.data.repo, pr: label, run: deps.now().toISOString() },
    budget,
    onUnpricedBudget: () => void warnUnpriced(capDeps(deps), true).catch(() => undefined),
  });
  return { account, caps, ...(check ? { check } : {}) };
}

async function answerPass(
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

async function answerEach(
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

/** A comment's spend into the document: today's, the total, and the comment's own. */
async function recordSpend(deps: CommentFlowDeps, key: string, id: string, usage: Usage): Promise<void> {
  if (usage.requests === 0 && usage.input + usage.output === 0) return;
  const now = deps.now();
  await deps.store.update(key, (d) => ({ ...d, data: { ...d.data, spend: addSpend(d.data.spend, usage, now, { comment: id, usage }) } }));
}

/** The budget stopped an answer: the watcher's pass holds the PR at its cap; a pass by hand says how to go on. */
async function budgetStopped(deps: CommentFlowDeps, doc: PrDocument, pass: PassAccount, comment: PrComment): Promise<string> {
  const { account, check } = pass;
  const spent = account.spentLine();
  const time = deps.now().toISOString();
  await deps.store.update(doc.key, (d) => ({
    ...d,
    log: [
      ...d.log,
      logLine(
        time,
        `comment ${comment.id}: budget reached (${spent}) before it was answered; it waits for the next pass, no failure counted`,
      ),
    ],
  }));
  if (check) return holdAtCap(capDeps(deps), doc, prLabel(doc.data), capReached(check, account.usage, pass.caps), "comments");
  return `Budget reached: ${spent}. Comment ${comment.id} and those after it were not answered (no failure counted). ${account.stopped?.fix ?? ""}`.trim();
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

/** Whether a comment's words may reach a session: otto's and the user's own, the enabled review bot's, trusted authors'. */
function trustedForContext(comment: PrComment, trust: ReadonlyMap<string, TrustDecision>, me: string | undefined, bot: BotPolicy): boolean {
  if (isOttoComment(comment, me) || isMine(comment, me)) return true;
  const kind = botKind(comment, bot);
  if (kind !== undefined) return kind === "review_bot" && bot.handle;
  return trust.get(comment.id)?.trusted === true;
}

function describeSkips(skipped: ReadonlyArray<{ reason: SkipReason }>): string {
  const counts = new Map<SkipReason, number>();
  for (const s of skipped) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
  const label: Record<SkipReason, string> = {
    own: "by the token's user",
    bot: "by bots",
    covered: "answered with a newer comment of their thread",
    untrusted: "by people otto does not act for",
  };
  return [...counts].map(([reason, n]) => `${n} ${label[reason]}`).join(", ");
}
