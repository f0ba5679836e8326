import fs from "node:fs/promises";
import { OttoError, assertOttoPathSafe, formatError, redact, type Env } from "../../core/index.ts";
import { parseDuration } from "../../config/index.ts";
import { mapPrToWorkdir, repoUrlOfPr, type PrWorkdir } from "../../repo/index.ts";
import { deferredText, openPrTree, snapshotPrTree } from "../pr-tree.ts";
import { configChanges, holdText, notifyHold, type ConfigCheck } from "../context/config-hold.ts";
import { checkCommands, describeResolvedChecks, resolveChecks } from "../../analysis/index.ts";
import { describeBaseline, ignoredLine, runChecks, runGit, type TreeSnapshot } from "../../workspace/index.ts";
import { commitAndPush, snapshotGitControl } from "../../workspace/index.ts";
import { refuseUnpushed } from "../../workspace/index.ts";
import { describeHolder, withWorkLock } from "../../workspace/index.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import { runAttempt, UNCHECKED, type AttemptResult } from "./attempt.ts";
import { nextStep, planStart, previousAttempts } from "./decide.ts";
import { giveUp, infrastructure, refuseFork } from "./endings.ts";
import { Flow, short, summaryLines, type FixDeps, type FixInput, type FixModels, type FixOutcome } from "./flow.ts";
import { Account, withAccount } from "../../cost/index.ts";
import { capReached, prLabel, readCaps, type CapCheck, type DailyCaps } from "../context/spend.ts";
import { holdAtCap, releaseCapHold, warnUnpriced, type CapHoldDeps } from "../context/cap-hold.ts";
import { collectLogs } from "./logs.ts";
import { inRepoQueue } from "./repo-queue.ts";
import { analyseFailure, type SessionContext } from "./sessions.ts";
import { isInfrastructure, parseCauseFiles, parseVerdict } from "./verdict.ts";
import { assertSandbox } from "../../sandbox/index.ts";

/*
 * The fix flow (docs/pr-fix.md): a red pipeline on a tracked PR → logs → phase 1 (failure
 * summary, code or infrastructure) → re-run, or phase 2 attempts until one is pushed or
 * max_fix_attempts is reached → one giving-up comment. Every step is recorded in the PR document.
 */

export type { FixDeps, FixInput, FixModels, FixOutcome, FixResult } from "./flow.ts";

export async function runFix(deps: FixDeps, input: FixInput): Promise<FixOutcome> {
  // sandbox: "required" and none here: no session or check starts.
  assertSandbox(deps.config.sandbox, deps.env);
  const { pr, doc } = input;
  const start = planStart(doc.data, pr, deps.now());
  const label = prLabel(doc.data);
  const caps: DailyCaps = { prUsd: deps.config.limits.pr_usd_per_day, watcherUsd: deps.config.limits.watcher_usd_per_day };
  let check: Extract<CapCheck, { kind: "open" }> | undefined;
  let budget = deps.budget;
  if (start.kind === "fix" && input.trigger === "watcher") {
    // The watcher's daily caps, before anything that costs: at a cap the PR waits for the next day (or a raised cap).
    const found = await readCaps(deps.env, caps, label, deps.now());
    if (found.kind !== "open") {
      const text = await holdAtCap(capDeps(deps), doc, label, found, "fix");
      return { key: doc.key, result: "held", lines: [text] };
    }
    check = found;
    budget = found.budget;
    if (doc.data.cap_hold) await releaseCapHold(deps.store, doc.key);
    await warnUnpriced(capDeps(deps), found.unpriced);
  }
  const account = new Account(`pr fix ${doc.key}`, {
    labels: { repo: doc.data.repo, pr: label, run: deps.now().toISOString() },
    budget,
    onUnpricedBudget: () => void warnUnpriced(capDeps(deps), true).catch(() => undefined),
  });
  // A budget stop aborts whatever runs: the sessions (through the runner), the checks and the loop.
  const signal = deps.signal ? AbortSignal.any([deps.signal, account.signal]) : account.signal;
  const flow = new Flow({ ...deps, signal }, input, account);
  const outcome = await withAccount(account, () => fixRun(flow, deps, start, { caps, check }));
  await flow.recordSpend().catch(() => undefined);
  return { ...outcome, usage: account.usage, parts: flow.parts };
}

function capDeps(deps: FixDeps): CapHoldDeps {
  return {
    store: deps.store,
    notify: deps.notify,
    env: deps.env,
    now: () => deps.now(),
    log: (level, message, extra) => deps.log(level, message, extra),
  };
}

/**
 * The budget stopped the fix (the watcher's daily cap, or /otto-pr fix --budget): no attempt is
 * counted for the unfinished step and the PR is left to be fixed again: by the watcher the next
 * UTC day (or after the cap is raised; a person is told once), by hand with a larger budget.
 */
async function budgetStop(
  flow: Flow,
  limits: { caps: DailyCaps; check: Extract<CapCheck, { kind: "open" }> | undefined },
): Promise<FixOutcome> {
  const { deps, input, account } = flow;
  const spent = account.spentLine();
  const watcher = input.trigger === "watcher";
  await flow.record({
    data: { status: watcher ? "failed" : "watching", fix_started: undefined },
    entry: flow.entry("Budget", `the fix stopped at its budget (${spent}); no attempt counted for the unfinished step`, {
      summary: flow.summary,
    }),
    log: [`fixing → ${watcher ? "failed" : "watching"}: budget reached (${spent}); no attempt counted`],
  });
  if (watcher && limits.check) {
    const text = await holdAtCap(
      capDeps(deps),
      input.doc,
      prLabel(input.doc.data),
      capReached(limits.check, account.usage, limits.caps),
      "fix",
    );
    return flow.outcome("held", `Budget reached: ${spent}.`, text, ...summaryLines(flow));
  }
  return flow.outcome(
    "stopped",
    `Budget reached: ${spent}. No attempt was counted for the unfinished step.`,
    `${account.stopped?.fix ?? "Run it again with a larger --budget."} (/otto-pr fix ${input.doc.data.id} --budget <usd>)`,
    ...summaryLines(flow),
  );
}

async function fixRun(
  flow: Flow,
  outer: FixDeps,
  start: ReturnType<typeof planStart>,
  limits: { caps: DailyCaps; check: Extract<CapCheck, { kind: "open" }> | undefined },
): Promise<FixOutcome> {
  const { deps, input } = flow;
  const { pr } = input;
  if (start.kind === "busy") return flow.outcome("busy", `A fix of ${flow.key} is already running (since ${start.since}).`);
  if (start.kind === "gave_up")
    return flow.outcome(
      "gave_up",
      `otto gave up on ${flow.key} at ${start.since} (${input.doc.data.fix_attempts} attempts); raise max_fix_attempts in its document to try again.`,
    );
  if (start.kind === "fork") return refuseFork(flow, start.notify);
  if (start.kind === "give_up") return giveUp(flow);
  if (start.kind === "fix_pending") {
    return flow.outcome(
      "busy",
      `otto already pushed a fix (${short(start.sha)}) on top of ${short(pr.headSha)}; waiting for the forge to show it as the PR's head.`,
      `If the PR's head does not move to ${short(start.sha)} within minutes, look at the branch on the remote (git ls-remote).`,
    );
  }

  let claimed = false;
  const doc = await deps.store.update(flow.key, (current) => {
    if (planStart(current.data, pr, deps.now()).kind !== "fix") return undefined;
    claimed = true;
    const log = [
      `${current.data.status} → fixing (${input.trigger}): ${flow.failedChecks.join(", ") || "pipeline failed"} on ${short(pr.headSha)}`,
    ];
    // Someone else pushed since otto's last fix: noticed, nothing reset.
    if (current.data.fix_sha && current.data.fix_sha !== pr.headSha)
      log.push(
        `head ${short(pr.headSha)} is not otto's last fix ${short(current.data.fix_sha)} (pushed by someone else); fix attempts not reset`,
      );
    return {
      ...current,
      data: { ...current.data, status: "fixing", fix_started: flow.time() },
      log: [...current.log, ...log.map((l) => logLine(flow.time(), l))],
    };
  });
  if (!doc) throw new OttoError("pr_not_tracked", `PR ${flow.key} is no longer tracked.`, "Add it again with /otto-pr add <url>.");
  if (!claimed) return flow.outcome("busy", `A fix of ${flow.key} is already running.`);
  try {
    return await inRepoQueue(deps.sessions, repoUrlOfPr(pr.url), () => fixClaimed(flow, doc));
  } catch (error) {
    if (flow.account.stopped && !outer.signal?.aborted) return await budgetStop(flow, limits);
    if (outer.signal?.aborted) {
      // Cancelled (the watcher stopped, the command was aborted): not the PR's failure and nobody to
      // notify. Back to watching, so the next poll sees the failure and hands it over again.
      await flow
        .record({
          data: { status: "watching", fix_started: undefined },
          entry: flow.entry("Cancelled", "the fix was cancelled before it finished; no attempt counted for the unfinished step", {
            summary: flow.summary,
          }),
          log: ["fixing → watching: fix cancelled; the next poll hands the failure back"],
        })
        .catch(() => undefined);
      throw error;
    }
    const message = redact(formatError(error), deps.secrets);
    await flow
      .record({
        data: { status: "failed", fix_started: undefined },
        entry: flow.entry("Error", `the fix stopped: ${message}`, { summary: flow.summary }),
        log: [`fixing → failed: fix stopped: ${message}`],
      })
      .catch(() => undefined);
    if (input.trigger === "watcher" && input.doc.data.human_sha !== pr.headSha) {
      await flow.record({ data: { human_sha: pr.headSha } }).catch(() => undefined);
      await flow.notifyHuman(`otto could not fix PR #${pr.number}: ${pr.title}`, message);
    }
    throw error;
  }
}

async function fixClaimed(flow: Flow, claimed: PrDocument): Promise<FixOutcome> {
  const { deps, input } = flow;
  const { pr } = input;
  const models = await deps.models();
  flow.progress("otto pr fix: finding the PR's worktree");
  const workdir = await mapPrToWorkdir({
    repoUrl: repoUrlOfPr(pr.url),
    branch: pr.sourceBranch,
    config: { repos: deps.config.repos },
    cwd: deps.cwd,
    git: { env: deps.env },
  });
  if (!workdir.onBranch) {
    throw new OttoError(
      "pr_wrong_branch",
      `${workdir.dir} is a clone of ${pr.repo} but does not have the PR's branch '${pr.sourceBranch}' checked out.`,
      `git -C ${workdir.dir} checkout ${pr.sourceBranch}, or track the repo with /otto-repo add (worktree strategy) so otto keeps one worktree per PR branch.`,
    );
  }
  // Another job (the comment flow, the review loop, another process's fix) may be editing this tree.
  const owner = `the fix flow of ${flow.key} (${input.trigger === "manual" ? "/otto-pr fix" : "PR watcher"})`;
  const held = await withWorkLock(workdir.dir, owner, () => fixInCheckout(flow, claimed, workdir, models), {
    env: deps.env,
    now: () => deps.now(),
  });
  if (!held.busy) return held.value;
  // Not an attempt: the PR goes back to watching, so the next poll sees the failure again and hands it back.
  const holder = describeHolder(held.holder);
  deps.log("info", `fix of ${flow.key} deferred: ${workdir.dir} is busy with ${holder}`);
  await flow.record({
    data: { status: "watching", fix_started: undefined },
    log: [`fixing → watching: the working tree ${workdir.dir} is busy with ${holder}; the failure is left for the next cycle`],
  });
  return flow.outcome(
    "busy",
    `The working tree ${workdir.dir} is busy with ${holder}; nothing was changed.`,
    input.trigger === "manual"
      ? "Run /otto-pr fix again when that job has finished; a running PR watcher picks the failure up on its next poll."
      : "The next poll hands the failure to the fix flow again.",
  );
}

/**
 * The user's uncommitted work is never touched: a dirty checkout gets the fix in a temporary
 * worktree (removed afterwards, whatever happens), or, hands-off, no fix at all until it is clean.
 */
async function fixInCheckout(flow: Flow, claimed: PrDocument, workdir: PrWorkdir, models: FixModels): Promise<FixOutcome> {
  const { deps, input } = flow;
  const { pr } = input;
  const tree = await openPrTree({
    dir: workdir.dir,
    remote: workdir.remote,
    strategy: workdir.strategy,
    branch: pr.sourceBranch,
    env: deps.env,
    label: `otto-fix-${pr.number}`,
  });
  if (tree.kind === "deferred") return deferDirty(flow, tree);
  if (tree.temporary) flow.progress(`otto pr fix: working ${tree.how}`);
  try {
    // The checkout itself is brought up to the PR's head; a temporary worktree already is there.
    if (!tree.temporary) await syncBranch(workdir.dir, workdir.remote, pr.sourceBranch, deps.env);
    // Before the first session: OpenCode loads the tree's configuration when otto opens one there.
    const config = await configChanges({ dir: tree.dir, remote: workdir.remote, pr, state: claimed.data, env: deps.env });
    if (config.files.length > 0) {
      if (input.trigger === "watcher") return await holdForConfig(flow, config);
      await flow.record({
        data: { config_ok_sha: config.head },
        log: [
          `/otto-pr fix by hand on ${short(config.head)}, which changes OpenCode configuration (${config.files.join(", ")}): accepted; otto works on this head`,
        ],
      });
      flow.progress(`otto pr fix: the head changes OpenCode configuration (${config.files.join(", ")}); run by hand, so otto proceeds`);
    }
    // After the fast-forward: what the PR's head ignores is what the user's ignored files are judged by.
    const baseline = await snapshotPrTree(tree.dir, deps.env);
    return await fixInTree(flow, claimed, { dir: tree.dir, remote: workdir.remote, baseline, detached: tree.temporary }, models);
  } finally {
    const problem = await tree.release();
    if (problem) deps.log("warn", problem);
  }
}

/** The head changes OpenCode configuration: no session; noted in the PR document, and a person told once per head commit. */
async function holdForConfig(flow: Flow, config: ConfigCheck): Promise<FixOutcome> {
  const { input } = flow;
  const { pr } = input;
  const { title, text, log } = holdText(pr, config, "start a fix session", `/otto-pr fix ${input.doc.data.id}`);
  const notify = notifyHold(input.doc.data, pr.headSha);
  await flow.record({
    data: { status: "watching", fix_started: undefined, ...(notify ? { config_hold_sha: pr.headSha } : {}) },
    log: [`fixing → watching: ${log}`],
  });
  if (notify) await flow.notifyHuman(title, text);
  return flow.outcome("deferred", `${title}.`, text);
}

/** Hands-off and dirty: nothing runs; noted in the PR document, and a person told once per head commit. */
async function deferDirty(flow: Flow, tree: { dir: string; changes: string[] }): Promise<FixOutcome> {
  const { input } = flow;
  const { pr } = input;
  const { title, text } = deferredText(pr, tree, `/otto-pr fix ${input.doc.data.id}`);
  const notify = input.doc.data.human_sha !== pr.headSha;
  await flow.record({
    data: { status: "watching", fix_started: undefined, ...(notify ? { human_sha: pr.headSha } : {}) },
    log: [`fixing → watching: not fixed: ${text}`],
  });
  if (notify) await flow.notifyHuman(title, text);
  return flow.outcome("deferred", `${title}.`, text);
}

interface FixTree {
  dir: string;
  remote: string;
  baseline: TreeSnapshot;
  detached: boolean;
}

async function fixInTree(flow: Flow, claimed: PrDocument, workdir: FixTree, models: FixModels): Promise<FixOutcome> {
  const { deps, input } = flow;
  const { pr } = input;
  // Before any session has the tree: the push compares against it (src/workspace/git-guard.ts),
  // and what the sessions change is read against this commit (src/workspace/screen-changes.ts).
  const gitControl = await snapshotGitControl(workdir.dir, { env: deps.env });
  const since = (await runGit(["rev-parse", "HEAD"], { cwd: workdir.dir, env: deps.env })).stdout.trim();

  flow.progress(`otto pr fix: downloading the logs of ${flow.failedChecks.join(", ")}`);
  const logs = await collectLogs({
    backend: input.backend,
    pr,
    key: flow.key,
    checks: input.pipeline.checks,
    dir: workdir.dir,
    storeDir: deps.store.dir,
    secrets: deps.secrets,
    env: deps.env,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const session: SessionContext = {
    sessions: deps.sessions,
    env: deps.env,
    dir: workdir.dir,
    parentID: deps.parentID,
    signal: deps.signal,
    timeoutMs: parseDuration(deps.config.spec.task_timeout),
  };
  flow.progress(`otto pr fix: phase 1, analysing ${logs.files.length} log(s)`);
  try {
    const spend = flow.account.child("analysis");
    try {
      flow.summary = redact(
        await withAccount(spend, () =>
          analyseFailure(session, models.analysis, { pr, checks: input.pipeline.checks, files: logs.files, missing: logs.missing }),
        ),
        deps.secrets,
      );
    } finally {
      flow.parts.push({ name: "analysis", usage: spend.usage });
    }
  } finally {
    // Checked again: the analysis session could have swapped a link in meanwhile.
    if (
      await assertOttoPathSafe(logs.worktreeDir).then(
        () => true,
        () => false,
      )
    )
      await fs.rm(logs.worktreeDir, { recursive: true, force: true });
  }
  flow.verdict = parseVerdict(flow.summary);
  if (isInfrastructure(flow.verdict)) return infrastructure(flow, claimed);

  // pr.verify, else the project's checks found in the PR's tree; run once before any fix session
  // touches it, so a check the PR already fails blocks the fix only if the fix makes it worse.
  const resolved = await resolveChecks("pr.verify", deps.config.pr.verify, workdir.dir);
  const verify = checkCommands(resolved);
  const verifyTimeoutMs = parseDuration(deps.config.spec.verify_timeout);
  let baseline: Awaited<ReturnType<typeof runChecks>> | undefined;
  if (verify.length > 0) {
    flow.progress(`otto pr fix: baseline of ${verify.length} check(s) before the fix`);
    baseline = await runChecks(verify, {
      cwd: workdir.dir,
      timeoutMs: verifyTimeoutMs,
      env: deps.env,
      sandbox: deps.config.sandbox,
      secrets: deps.secrets,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
  }
  flow.checks = [describeResolvedChecks(resolved), ...(baseline ? [describeBaseline(baseline)] : [])].join("; ");
  let doc = await flow.record({ log: [flow.checks] });
  const causeFiles = parseCauseFiles(flow.summary);
  const failureSummary = flow.summary ?? "";
  let note: string | undefined;
  for (;;) {
    deps.signal?.throwIfAborted();
    const attempt = doc.data.fix_attempts + 1;
    const previous = [previousAttempts(doc.sections), note].filter(Boolean).join("\n\n") || undefined;
    const spend = flow.account.child(`fix attempt ${attempt}`);
    const result: AttemptResult = await withAccount(spend, () =>
      runAttempt({
        session,
        model: models.fix,
        reviewModel: models.review,
        pr,
        key: flow.key,
        remote: workdir.remote,
        baseline: workdir.baseline,
        since,
        causeFiles,
        detached: workdir.detached,
        summary: failureSummary,
        previous,
        attempt,
        failedChecks: flow.failedChecks,
        verify,
        ...(baseline ? { checkBaseline: baseline } : {}),
        verifyTimeoutMs,
        sandbox: deps.config.sandbox,
        gitHooks: deps.config.git.hooks,
        secrets: deps.secrets,
        env: deps.env,
        push: deps.push ?? commitAndPush,
        gitControl,
        progress: (m) => flow.progress(m),
      }),
    );
    flow.parts.push({ name: `attempt ${attempt}`, usage: spend.usage });
    if (result.infrastructure) return infrastructure(flow, doc, result.detail);
    const step = nextStep(result.outcome, attempt, doc.data.max_fix_attempts);
    const status = step === "wait" ? "watching" : step === "retry" ? "fixing" : "failed";
    doc = await flow.record({
      data: {
        fix_attempts: attempt,
        status,
        ...(result.sha ? { fix_sha: result.sha, ...(result.outcome === "pushed" ? { fix_base_sha: pr.headSha } : {}) } : {}),
        ...(status === "fixing" ? {} : { fix_started: undefined }),
      },
      entry: flow.entry(`Attempt ${attempt}`, result.detail, {
        commit: result.sha,
        summary: attempt === claimed.data.fix_attempts + 1 ? flow.summary : undefined,
        spend: spend.usage,
      }),
      spend: { attempt, usage: spend.usage },
      log: [`fix attempt ${attempt}/${doc.data.max_fix_attempts}: ${result.detail}${status === "fixing" ? "" : ` (fixing → ${status})`}`],
    });
    if (step === "wait") {
      return flow.outcome(
        "pushed",
        `Attempt ${attempt}/${doc.data.max_fix_attempts}: pushed \`${short(result.sha ?? "")}\` to ${pr.sourceBranch}${result.unchecked ? ` (${UNCHECKED})` : ""}, ${result.review ?? "reviewed"}; the next poll shows whether the pipeline passes.`,
        ...(result.ignored ? [ignoredLine(result.ignored)] : []),
        ...summaryLines(flow),
      );
    }
    if (step === "give_up") return giveUp(flow, `Attempt ${attempt}: ${result.detail}`);
    if (step === "stop")
      return flow.outcome("stopped", `Attempt ${attempt}/${doc.data.max_fix_attempts} stopped: ${result.detail}`, ...summaryLines(flow));
    note = result.note;
  }
}

/**
 * Fetch and fast-forward the PR branch when the tree allows it, so the fix starts from the PR's
 * head; local commits the PR's branch does not have are refused, not pushed with the fix.
 */
async function syncBranch(dir: string, remote: string, branch: string, env: Env): Promise<void> {
  // No forced refspec: if the branch was rewritten on the server, the sync is skipped and the push's rebase deals with it.
  const fetched = await runGit(["fetch", "-q", remote, `refs/heads/${branch}:refs/remotes/${remote}/${branch}`], { cwd: dir, env });
  if (fetched.exitCode !== 0) return;
  // Best effort (the tree is clean here: a dirty checkout gets a temporary worktree instead).
  await runGit(["merge", "--ff-only", "-q", `refs/remotes/${remote}/${branch}`], { cwd: dir, env });
  await refuseUnpushed({ dir, remote, branch, env });
}
