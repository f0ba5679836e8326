import type { SandboxMode } from "../../sandbox/index.ts";
import { formatError, redact, type Env } from "../../core/index.ts";
import type { CheckResult } from "../../workspace/index.ts";
import {
  describeAllowed,
  describeChangeSet,
  ignoredLine,
  namedLine,
  readChangeSet,
  runGit,
  type Weakening,
} from "../../workspace/index.ts";
import { formatModel, type ModelRef } from "../../session/index.ts";
import type { commitAndPush, GitControlSnapshot, TreeSnapshot } from "../../workspace/index.ts";
import type { PrInfo } from "../types.ts";
import { commitMessage, type AttemptOutcome } from "./decide.ts";
import { resolveConflicts } from "../resolve-conflicts.ts";
import { fixAndCheck } from "./fix-pass.ts";
import { reviewFix, type SessionContext } from "./sessions.ts";

/*
 * Phase 2, one attempt: a fix pass (fix-pass.ts: a fresh executor session fixes the code, otto
 * refuses a fix that weakens the checks, runs pr.verify), the secondary model reviews the fix (a
 * rejection gets one more fix pass), then otto commits what the sessions left and pushes it to the
 * PR's branch (rebasing once if the branch moved, with one conflict-resolution session); an
 * unpushed fix is set aside on a branch of its own.
 */

export interface AttemptInput {
  session: SessionContext;
  model: ModelRef;
  /** The model that reviews the fix before the push (models.secondary). */
  reviewModel: ModelRef;
  pr: PrInfo;
  key: string;
  remote: string;
  /** The tree before the sessions ran: only what changed since is committed. */
  baseline: TreeSnapshot;
  /** HEAD before the flow's first session: what the sessions changed is read against it. */
  since: string;
  /** Files the failure analysis named as the cause: a change that weakens the checks is allowed there only. */
  causeFiles: readonly string[];
  /** The tree is otto's temporary worktree (detached HEAD). */
  detached: boolean;
  summary: string;
  previous?: string | undefined;
  attempt: number;
  failedChecks: readonly string[];
  verify: readonly string[];
  /** The checks on the tree before the first fix session: what failed there blocks a push only when it got worse. */
  checkBaseline?: readonly CheckResult[];
  verifyTimeoutMs: number;
  /** otto.jsonc `sandbox`: where the checks run. */
  sandbox: SandboxMode;
  /** otto.jsonc `git.hooks`: "run" runs the fix commit's hooks in the sandbox. */
  gitHooks?: "skip" | "run";
  secrets: readonly string[];
  env: Env;
  push: typeof commitAndPush;
  /** The tree's git configuration and hooks before the flow's first session: the push refuses if they changed. */
  gitControl?: GitControlSnapshot | undefined;
  progress(message: string): void;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  /** One line for Fix History and the summary. */
  detail: string;
  /** The pushed commit. */
  sha?: string;
  /** What the next attempt should know (failed checks' output, the session's reason). */
  note?: string;
  /** The session said the failure is not the code's (`TASK_FAILED: infrastructure: …`). */
  infrastructure?: boolean;
  /** How the pushed fix was reviewed: "reviewed by <model>: approved". */
  review?: string;
  /** Pushed with no local checks to run (none configured, none found in the tree). */
  unchecked?: boolean;
  /** Files of the user's git ignored before the fix and a session un-ignored: left out of the commit. */
  ignored?: string[];
}

/** How a fix pushed without any local check says so, in its summary and the PR document. */
export const UNCHECKED = "pushed without local checks: none found";

/** The review's reasons as one line for Fix History (model text: redacted and bounded). */
const reasonsLine = (reasons: readonly string[], secrets: readonly string[]): string => {
  const line = redact(
    reasons
      .map((r) => r.replace(/\s+/g, " ").trim())
      .filter(Boolean)
      .join("; ") || "no reason given",
    secrets,
  );
  return line.length > 1500 ? `${line.slice(0, 1500)}…` : line;
};

/**
 * The secondary model's review of the uncommitted fix. An approval says so; a rejection gives its
 * reasons; a review that could not be had (session error, no valid envelope) ends the attempt with
 * nothing pushed.
 */
async function review(
  input: AttemptInput,
  pass: number,
  allowed: readonly Weakening[],
): Promise<{ approved: boolean; reasons: string } | AttemptResult> {
  const { session } = input;
  input.progress(`otto pr fix: reviewing the fix (${formatModel(input.reviewModel)})`);
  try {
    // Everything the push would carry (the session's own commits too), as text whatever the attributes say.
    const diff = describeChangeSet(
      await readChangeSet({ dir: session.dir, since: input.since, baseline: input.baseline, env: input.env }),
      DIFF_LIMIT,
    );
    const flagged = describeAllowed(allowed);
    const verdict = await reviewFix(session, input.reviewModel, {
      pr: input.pr,
      summary: input.summary,
      diff,
      checkCommands: input.verify,
      pass,
      ...(flagged ? { flagged: redact(flagged, input.secrets) } : {}),
    });
    return { approved: verdict.verdict === "APPROVE", reasons: reasonsLine(verdict.reasons, input.secrets) };
  } catch (error) {
    if (session.signal?.aborted) throw error;
    return {
      outcome: "review_failed",
      detail: `the review of the fix by ${formatModel(input.reviewModel)} failed, nothing pushed: ${redact(formatError(error), input.secrets)}`,
    };
  }
}

/** The review sees at most this much of the fix. */
const DIFF_LIMIT = 30_000;

export async function runAttempt(input: AttemptInput): Promise<AttemptResult> {
  const { session, pr } = input;
  const dir = session.dir;
  const startHead = (await runGit(["rev-parse", "HEAD"], { cwd: dir, env: input.env })).stdout.trim();
  const reviewer = formatModel(input.reviewModel);
  let previous = input.previous;
  let subject: string | undefined;
  let named: string | undefined;
  // A rejected fix gets one more pass in a fresh session, told why; a second rejection ends the attempt.
  for (let pass = 1; ; pass++) {
    input.progress(
      `otto pr fix: phase 2, fix attempt ${input.attempt}${pass > 1 ? ", after the review" : ""} (${input.model.providerID}/${input.model.modelID})`,
    );
    const checked = await fixAndCheck(input, startHead, previous);
    if ("outcome" in checked) return checked;
    const verdict = await review(input, pass, checked.allowed);
    if ("outcome" in verdict) return verdict;
    if (verdict.approved) {
      subject = checked.subject;
      named = namedLine(checked.named);
      break;
    }
    if (pass >= 2) {
      return {
        outcome: "review_rejected",
        detail: `the review by ${reviewer} rejected the fix twice, nothing pushed: ${verdict.reasons}`,
        note: `A reviewer rejected the previous session's fix: ${verdict.reasons}`,
      };
    }
    previous = [
      input.previous,
      `The fix you are continuing was rejected by an independent review; its changes are still in the working tree. Address the review's reasons:\n${verdict.reasons}`,
    ]
      .filter(Boolean)
      .join("\n\n");
  }
  const approval = `reviewed by ${reviewer}: approved`;

  // A cancelled fix pushes nothing, even when its checks passed before the signal came.
  session.signal?.throwIfAborted();
  input.progress(`otto pr fix: pushing to ${pr.sourceBranch}`);
  const message = redact(
    commitMessage({ number: pr.number, key: input.key, attempt: input.attempt, subject, checks: input.failedChecks, named }),
    input.secrets,
  );
  const pushed = await input.push({
    dir,
    branch: pr.sourceBranch,
    remote: input.remote,
    message,
    baseline: input.baseline,
    detached: input.detached,
    env: input.env,
    secrets: input.secrets,
    ...(input.gitControl ? { guard: input.gitControl } : {}),
    ...(input.gitHooks === "run" ? { hooks: { sandbox: input.sandbox } } : {}),
    resolveConflicts: async ({ files }) => {
      input.progress(`otto pr fix: resolving rebase conflicts in ${files.join(", ")}`);
      return resolveConflicts(session, input.model, { pr, files, change: subject ?? input.summary.slice(0, 2000) });
    },
  });
  if (pushed.outcome === "pushed") {
    // Say what was not done: with no checks configured or found, nothing vouched for the fix locally.
    const unchecked = input.verify.length === 0 ? ` (${UNCHECKED})` : "";
    // Ignored files of the user's a session un-ignored were left out: the PR document says which.
    const leftOut = pushed.ignored.length > 0 ? ` ${ignoredLine(pushed.ignored)}` : "";
    return {
      outcome: "pushed",
      sha: pushed.sha,
      review: approval,
      unchecked: input.verify.length === 0,
      ...(pushed.ignored.length > 0 ? { ignored: pushed.ignored } : {}),
      detail: `pushed to ${pr.sourceBranch}${pushed.rebased ? " after rebasing onto the moved branch" : ""}: ${subject ?? "fix"}${unchecked}; ${approval}${named ? ` ${named}` : ""}${leftOut}`,
    };
  }
  if (pushed.outcome === "nothing")
    return {
      outcome: "nothing",
      detail: pushed.detail,
      note: "The previous session's changes were already on the branch: the pipeline still failed with them.",
    };
  if (pushed.outcome === "conflict" || pushed.outcome === "rejected") {
    const kept = await setAside(dir, input.env, startHead, `otto/fix-${pr.number}-attempt-${input.attempt}`);
    return { outcome: pushed.outcome, detail: kept ? `${pushed.detail} ${kept}` : pushed.detail };
  }
  return { outcome: pushed.outcome, detail: pushed.detail };
}

/**
 * An unpushed fix would block the next attempt (the PR branch would be ahead of its remote), and
 * it is otto's own work: it moves to a branch of its own and the PR branch goes back to where the
 * attempt started. Says what it did; undefined when there was nothing to move or git refused.
 */
async function setAside(dir: string, env: Env, startHead: string, branch: string): Promise<string | undefined> {
  const head = (await runGit(["rev-parse", "HEAD"], { cwd: dir, env })).stdout.trim();
  if (!head || head === startHead) return undefined;
  if ((await runGit(["branch", "-f", branch, head], { cwd: dir, env })).exitCode !== 0) return undefined;
  // --keep refuses rather than touch uncommitted changes; commitAndPush committed everything.
  if ((await runGit(["reset", "-q", "--keep", startHead], { cwd: dir, env })).exitCode !== 0)
    return `The unpushed fix is also on branch ${branch}.`;
  return `The unpushed fix is kept on branch ${branch}; the PR branch is back at ${startHead.slice(0, 7)}.`;
}
