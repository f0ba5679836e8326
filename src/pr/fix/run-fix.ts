import { OttoError, formatError, redact } from "../../core/index.ts";
import { repoUrlOfPr } from "../../repo/index.ts";
import { logLine } from "../store/document.ts";
import { planStart } from "./decide.ts";
import { giveUp, refuseFork } from "./endings.ts";
import { Flow, short, summaryLines, type FixDeps, type FixInput, type FixOutcome } from "./flow.ts";
import { Account, totalTokens, withAccount } from "../../cost/index.ts";
import { recordFixCost } from "./flake-record.ts";
import { stillInherited } from "./inherited-hold.ts";
import { capReached, prLabel, readCaps, type CapCheck, type DailyCaps } from "../context/spend.ts";
import { holdAtCap, releaseCapHold, warnUnpriced, type CapHoldDeps } from "../context/cap-hold.ts";
import { inRepoQueue } from "./repo-queue.ts";
import { fixClaimed } from "./checkout.ts";
import { assertSandbox } from "../../sandbox/index.ts";

/*
 * The fix flow (docs/pr-fix.md): a red pipeline on a tracked PR → logs → phase 1 (failure
 * summary, code or infrastructure) → re-run, or phase 2 attempts until one is pushed or
 * max_fix_attempts is reached → one giving-up comment. Every step is recorded in the PR document.
 *
 * One file per step, each calling only the steps after it:
 * 1. run-fix.ts   runFix, fixRun: the sandbox, the daily caps, the account; claim the PR; a budget stop, a cancel or an error ends the run here
 * 2. checkout.ts  fixClaimed, fixInCheckout: the PR's worktree, the work lock, the tree (sync, config hold, dirty deferral)
 * 3. analyse.ts   fixInTree: phase 1, the logs; screen-failure.ts ends a flake or an inherited failure before any model call;
 *                 then the analysis session; an infrastructure verdict ends in endings.ts
 * 4. attempts.ts  fixAttempts: phase 2, the baseline of the checks, then the attempts until one pushes, stops or gives up
 * 5. attempt.ts   runAttempt: one attempt (fix session, screen, checks, review, push, set aside)
 * Beside them: flow.ts (the run and its records), endings.ts (re-run, fork, giving up), decide.ts (pure rules).
 */

export type { FixDeps, FixInput, FixModels, FixOutcome, FixResult } from "./flow.ts";

export async function runFix(deps: FixDeps, input: FixInput): Promise<FixOutcome> {
  const { pr, doc } = input;
  // No sandbox here: under "required" no session or check starts, nor under "auto" for the watcher and CI mode.
  assertSandbox(
    deps.config.sandbox,
    deps.env,
    undefined,
    input.trigger === "watcher" ? `The fix flow of ${doc.key} (unattended)` : undefined,
  );
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
  // What a fix costs here: the median a later flake or inherited failure saves (src/pr/store/flakes.ts).
  if (flow.parts.some((p) => p.name === "analysis") && account.usage.requests > 0)
    await recordFixCost({ storeDir: deps.store.dir, now: () => deps.now() }, doc.data, account.usage.usd, totalTokens(account.usage)).catch(
      (error: unknown) => deps.log("warn", `could not note the fix's cost in the flake ledger`, { error: formatError(error) }),
    );
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

  if (await stillInherited(deps, input)) {
    const names = input.doc.data.inherited?.checks.map((c) => c.name).join(", ") ?? "";
    return flow.outcome(
      "inherited",
      `${pr.targetBranch} still fails ${names} the same way; the PR is fixed normally once ${pr.targetBranch} is green.`,
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
