import { parseDuration } from "../../config/index.ts";
import { checkCommands, describeResolvedChecks, resolveChecks, type ResolvedChecks } from "../../analysis/index.ts";
import {
  describeBaseline,
  ignoredLine,
  runChecks,
  type CheckResult,
  type GitControlSnapshot,
  type TreeSnapshot,
} from "../../workspace/index.ts";
import { commitAndPush } from "../../workspace/index.ts";
import type { PrDocument } from "../store/document.ts";
import { withAccount } from "../../cost/index.ts";
import { runAttempt, UNCHECKED, type AttemptResult } from "./attempt.ts";
import { nextStep, previousAttempts } from "./decide.ts";
import { giveUp, infrastructure } from "./endings.ts";
import { short, summaryLines, type Flow, type FixModels, type FixOutcome } from "./flow.ts";
import type { SessionContext } from "./sessions.ts";
import { parseCauseFiles } from "./verdict.ts";

/*
 * Step 4 of the fix flow (order: run-fix.ts), phase 2: the checks run once on the untouched tree
 * (the baseline a fix is judged against), then one attempt after another (attempt.ts) until one
 * is pushed, the run stops, or max_fix_attempts is reached and otto gives up (endings.ts).
 */

/** The tree the fix works in (checkout.ts): the snapshot before any session, and whether it is otto's temporary worktree. */
export interface FixTree {
  dir: string;
  remote: string;
  baseline: TreeSnapshot;
  detached: boolean;
}

/** What phase 1 hands over: the session context, the tree's git configuration and HEAD before any session, and the failure summary. */
export interface PhaseOne {
  session: SessionContext;
  gitControl: GitControlSnapshot;
  since: string;
  /** The analysis's summary (redacted), as flow.summary holds it. */
  summary: string;
  /** The project's checks as the screening ran them on the untouched tree (screen-failure.ts): the baseline, not run twice. */
  checks?: { resolved: ResolvedChecks; results: CheckResult[] };
}

export async function fixAttempts(
  flow: Flow,
  claimed: PrDocument,
  workdir: FixTree,
  models: FixModels,
  from: PhaseOne,
): Promise<FixOutcome> {
  const { deps, input } = flow;
  const { pr } = input;
  const { session, gitControl, since, summary } = from;
  // pr.verify, else the project's checks found in the PR's tree; run once before any fix session
  // touches it, so a check the PR already fails blocks the fix only if the fix makes it worse.
  const resolved = from.checks?.resolved ?? (await resolveChecks("pr.verify", deps.config.pr.verify, workdir.dir));
  const verify = checkCommands(resolved);
  const verifyTimeoutMs = parseDuration(deps.config.spec.verify_timeout);
  let baseline: Awaited<ReturnType<typeof runChecks>> | undefined = from.checks?.results;
  if (verify.length > 0 && !baseline) {
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
  const causeFiles = parseCauseFiles(summary);
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
