import { redact, type Env } from "../../core/index.ts";
import {
  compareToBaseline,
  isBlocking,
  judgeRestoredChecks,
  restoredNote,
  runChecks,
  runGit,
  screenChanges,
  weakenedNote,
  type CheckResult,
  type Weakening,
} from "../../workspace/index.ts";
import type { AttemptInput, AttemptResult } from "./attempt.ts";
import { fixFailure } from "./sessions.ts";
import { fixSummary } from "./verdict.ts";

/*
 * One fix pass of an attempt (attempt.ts): the fix session, then what otto checks on what it left
 * before a model reviews it: that it changed something, that it does not weaken the checks
 * (src/workspace/screen-changes.ts, restored-checks.ts), and pr.verify against the baseline.
 */

const describeRuns = (results: readonly CheckResult[]): string =>
  results.map((r) => `${r.command}: ${r.passed ? "passed" : r.timedOut ? "timed out" : `exit ${r.exitCode}`}`).join(", ");

async function changed(dir: string, env: Env, startHead: string): Promise<boolean> {
  const status = await runGit(["status", "--porcelain"], { cwd: dir, env });
  const head = await runGit(["rev-parse", "HEAD"], { cwd: dir, env });
  return status.stdout.trim() !== "" || head.stdout.trim() !== startHead;
}

/** A fix pass whose checks passed: ready for the review. */
export interface Checked {
  subject: string | undefined;
  /** Changes that weaken the checks in files the analysis named: the reviewer is shown them. */
  allowed: Weakening[];
  /** Tests or check configuration the fix changed that the analysis named as the cause: the commit and the summary say so. */
  named: string[];
}

/** One fix session and the checks on what it left; an AttemptResult when the attempt ends there. */
export async function fixAndCheck(input: AttemptInput, startHead: string, previous: string | undefined): Promise<Checked | AttemptResult> {
  const { session, pr } = input;
  const dir = session.dir;
  const reply = await fixFailure(session, input.model, {
    pr,
    summary: input.summary,
    previous,
    checkCommands: input.verify,
    attempt: input.attempt,
  });
  const subject = fixSummary(reply.text);
  if (reply.failed !== undefined) {
    const reason = redact(reply.failed, input.secrets);
    if (/^infra(structure)?\b/i.test(reason))
      return { outcome: "task_failed", detail: `the fix session found no code to fix: ${reason}`, infrastructure: true };
    // Work it did before giving up stays in the tree for the next attempt (dirty state is otto's).
    return { outcome: "task_failed", detail: `the fix session gave up: ${reason}`, note: `The previous session gave up: ${reason}` };
  }
  if (!(await changed(dir, input.env, startHead)))
    return { outcome: "nothing", detail: "the fix session changed nothing", note: "The previous session changed no file." };

  // Before any check runs the session's work, and before a model reviews it.
  const screened = await screenChanges({
    dir,
    since: input.since,
    baseline: input.baseline,
    env: input.env,
    causeFiles: input.causeFiles,
    guard: input.gitControl,
  });
  if (screened.kind === "tampered") return { outcome: "tampered", detail: screened.detail };
  if (screened.kind === "refused") {
    return {
      outcome: "weakened",
      detail: `refused, nothing committed or pushed: the fix weakens the checks instead of fixing the code (${redact(screened.detail, input.secrets)})${input.causeFiles.length > 0 ? `; the analysis named only ${input.causeFiles.join(", ")} as the cause` : "; the analysis named no such file as the cause"}`,
      note: redact(weakenedNote(screened.refused), input.secrets),
    };
  }

  let results: CheckResult[] = [];
  if (input.verify.length > 0) {
    input.progress(`otto pr fix: running pr.verify (${input.verify.length} command(s))`);
    results = await runChecks(input.verify, {
      cwd: dir,
      timeoutMs: input.verifyTimeoutMs,
      env: input.env,
      sandbox: input.sandbox,
      secrets: input.secrets,
      ...(session.signal ? { signal: session.signal } : {}),
    });
    const comparisons = compareToBaseline(input.checkBaseline ?? [], results);
    const blocking = new Set(comparisons.filter(isBlocking).map((c) => c.command));
    const failed = results.filter((r) => !r.passed && blocking.has(r.command));
    if (failed.length > 0) {
      const output = failed.map((r) => `$ ${r.command} (exit ${r.exitCode})\n${r.output.slice(-3000)}`).join("\n\n");
      const explained = input.checkBaseline?.some((b) => !b.passed) ? comparisons.map((c) => c.line).join("; ") : describeRuns(results);
      return {
        outcome: "verify_failed",
        detail: `pr.verify failed, nothing pushed: ${explained}`,
        note: `The previous session's changes are still in the working tree, but otto's checks failed on them:\n${redact(output, input.secrets)}`,
      };
    }
  }
  // The guarantee behind the patterns: a fix that changed tests or check configuration must also
  // pass the PR's own versions of them (src/workspace/restored-checks.ts).
  const judged = await judgeRestoredChecks({
    dir,
    since: input.since,
    baseline: input.baseline,
    env: input.env,
    causeFiles: input.causeFiles,
    commands: input.verify,
    fixed: results,
    timeoutMs: input.verifyTimeoutMs,
    sandbox: input.sandbox,
    secrets: input.secrets,
    signal: session.signal,
    progress: (m) => input.progress(`otto pr fix: ${m}`),
  });
  if (judged.kind === "failed") {
    return {
      outcome: "weakened",
      detail: `refused, nothing committed or pushed: ${redact(judged.detail, input.secrets)}${input.causeFiles.length > 0 ? `; the analysis named only ${input.causeFiles.join(", ")} as the cause` : "; the analysis named no such file as the cause"}`,
      note: redact(restoredNote(judged), input.secrets),
    };
  }
  return { subject, allowed: screened.allowed, named: judged.named };
}
