import { renderPrompt } from "../prompts/index.ts";
import type { VerifyState } from "./commit-message.ts";
import { doc, type SpecContext } from "./context.ts";
import { errorLine, EXECUTOR, promptPass } from "./pass.ts";
import { taskFailedReason } from "./plan.ts";
import type { ExecuteDeps, Models, StepRecord } from "./types.ts";
import { describeChecks, runChecks, type CheckResult } from "../workspace/index.ts";
import { verifyReport } from "./verify-report.ts";

export interface VerifyOutcome {
  state: VerifyState;
  /** "Verification: passed after 1 fix (npm test: passed)" for the commit message. */
  line: string;
  steps: StepRecord[];
  /** Each round's results, the last one decides. */
  rounds: CheckResult[][];
}

/**
 * spec.verify after a phase: otto runs the commands (with spec.verify_timeout, output captured);
 * when one fails, a primary fix session gets the failing output (phase-fix prompt), then the
 * commands run again, up to spec.max_verify_fixes times. The phase is committed either way; the
 * commit records whether verification passed, and when it stays red the phase's tasks are not
 * done (failed, see verifyFailure).
 */
export async function verifyPhase(deps: ExecuteDeps, models: Models, ctx: SpecContext, group: number, label = `phase ${group}`): Promise<VerifyOutcome> {
  const { verify, verifyTimeoutMs, maxVerifyFixes } = deps.settings;
  if (verify.length === 0) return { state: "none", line: "Verification: none configured (spec.verify is empty)", steps: [], rounds: [] };
  const options = { cwd: deps.repoRoot, timeoutMs: verifyTimeoutMs, signal: deps.signal };
  const steps: StepRecord[] = [];
  const rounds: CheckResult[][] = [];
  let results = await runChecks(verify, options);
  rounds.push(results);
  steps.push({ name: "verification", outcome: describeChecks(results) });
  let fixes = 0;
  while (results.some((r) => !r.passed) && fixes < maxVerifyFixes && !deps.signal?.aborted) {
    fixes++;
    deps.progress(`${capitalise(label)}: verification failed, fix ${fixes}/${maxVerifyFixes}`);
    const prompt = renderPrompt(
      "phase-fix",
      {
        phase_number: group,
        review_report: verifyReport(group, results.filter((r) => !r.passed)),
        requirements_md: doc(ctx.docs.requirements),
        design_md: doc(ctx.docs.design),
        tasks_md: doc(ctx.docs.tasks),
        check_commands: ctx.checkCommands,
        codebase_summary: doc(ctx.codebaseSummary),
      },
      { env: deps.env },
    );
    const fix = await promptPass(deps, { agent: EXECUTOR, model: models.primary, title: `otto: fix verification of ${label} (${fixes})` }, prompt);
    const failed = taskFailedReason(fix.text);
    steps.push({
      name: `verification fix ${fixes} (primary)`,
      outcome: fix.error !== undefined ? `failed: ${errorLine(fix.error)}` : failed !== undefined ? `reported TASK_FAILED: ${failed}` : "done",
      model: fix.model,
      sessionID: fix.sessionID,
      dialog: fix.dialog,
      warning: fix.error !== undefined ? errorLine(fix.error) : undefined,
    });
    results = await runChecks(verify, options);
    rounds.push(results);
    steps.push({ name: `verification after fix ${fixes}`, outcome: describeChecks(results) });
  }
  const passed = results.length > 0 && results.every((r) => r.passed);
  const after = fixes > 0 ? ` after ${fixes} fix${fixes === 1 ? "" : "es"}` : "";
  return { state: passed ? "passed" : "failed", line: `Verification: ${passed ? "passed" : "FAILED"}${after} (${describeChecks(results)})`, steps, rounds };
}

/** Longest command quoted in a task's `last_error`; the full output is in the phase's history. */
const COMMAND_MAX = 80;

/**
 * Why the tasks of a phase whose verification stayed red are not done, for their `last_error`:
 * "spec.verify failed after 2 fixes: `npm test` exit 1".
 */
export function verifyFailure(outcome: VerifyOutcome): string {
  const last = outcome.rounds.at(-1) ?? [];
  const fixes = outcome.rounds.length - 1;
  const failed = last
    .filter((r) => !r.passed)
    .map((r) => `\`${r.command.length > COMMAND_MAX ? `${r.command.slice(0, COMMAND_MAX - 1)}…` : r.command}\` ${r.timedOut ? "timed out" : `exit ${r.exitCode}`}`);
  return `spec.verify failed${fixes > 0 ? ` after ${fixes} fix${fixes === 1 ? "" : "es"}` : ""}: ${failed.join(", ") || "no command ran"}`;
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
