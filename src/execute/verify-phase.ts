import { renderPrompt } from "../prompts/index.ts";
import type { VerifyState } from "./commit-message.ts";
import { doc, type SpecContext } from "./context.ts";
import { EXECUTOR, promptPass } from "./pass.ts";
import { taskFailedReason } from "./plan.ts";
import type { ExecuteDeps, Models, StepRecord } from "./types.ts";
import { describeResolvedChecks } from "../analysis/index.ts";
import { compareToBaseline, describeChecks, isBlocking, runChecks, type CheckResult } from "../workspace/index.ts";
import { verifyReport } from "./verify-report.ts";
import { errorLine } from "../core/index.ts";

export interface VerifyOutcome {
  state: VerifyState;
  /** "Verification: passed after 1 fix (npm test: passed)" for the commit message. */
  line: string;
  steps: StepRecord[];
  /** Each round's results, the last one decides. */
  rounds: CheckResult[][];
}

/**
 * The results that fail the work: those that failed when the baseline (deps.checkBaseline) passed, or
 * fail more than they did there. Without a baseline every failure counts.
 */
export function blockingResults(deps: Pick<ExecuteDeps, "checkBaseline">, results: readonly CheckResult[]): CheckResult[] {
  const blocking = new Set(
    compareToBaseline(deps.checkBaseline ?? [], results)
      .filter(isBlocking)
      .map((c) => c.command),
  );
  return results.filter((r) => !r.passed && blocking.has(r.command));
}

/** "npm test: passed", or each check against the baseline when one already failed there. */
function describeRound(deps: Pick<ExecuteDeps, "checkBaseline">, results: readonly CheckResult[]): string {
  if (!deps.checkBaseline?.some((b) => !b.passed)) return describeChecks(results);
  return compareToBaseline(deps.checkBaseline, results)
    .map((c) => c.line)
    .join("; ");
}

/**
 * spec.verify after a phase: otto runs the commands (with spec.verify_timeout, output captured);
 * when one fails, a primary fix session gets the failing output (phase-fix prompt), then the
 * commands run again, up to spec.max_verify_fixes times. The phase is committed either way; the
 * commit records whether verification passed, and when it stays red the phase's tasks are not
 * done (failed, see verifyFailure).
 */
export async function verifyPhase(
  deps: ExecuteDeps,
  models: Models,
  ctx: SpecContext,
  group: number,
  label = `phase ${group}`,
): Promise<VerifyOutcome> {
  const { verify, verifyTimeoutMs, maxVerifyFixes } = deps.settings;
  if (verify.length === 0) {
    const why = deps.settings.checks
      ? describeResolvedChecks(deps.settings.checks).replace(/^checks: /, "")
      : "none configured (spec.verify is empty)";
    return { state: "none", line: `Verification: ${why}`, steps: [], rounds: [] };
  }
  const options = { cwd: deps.repoRoot, timeoutMs: verifyTimeoutMs, signal: deps.signal, sandbox: deps.settings.sandbox ?? "auto" };
  const steps: StepRecord[] = [];
  const rounds: CheckResult[][] = [];
  let results = await runChecks(verify, options);
  rounds.push(results);
  steps.push({ name: "verification", outcome: describeRound(deps, results) });
  let fixes = 0;
  while (blockingResults(deps, results).length > 0 && fixes < maxVerifyFixes && !deps.signal?.aborted) {
    fixes++;
    deps.progress(`${capitalise(label)}: verification failed, fix ${fixes}/${maxVerifyFixes}`);
    const prompt = renderPrompt(
      "phase-fix",
      {
        phase_number: group,
        review_report: verifyReport(group, blockingResults(deps, results)),
        requirements_md: doc(ctx.docs.requirements),
        design_md: doc(ctx.docs.design),
        tasks_md: doc(ctx.docs.tasks),
        check_commands: ctx.checkCommands,
        codebase_summary: doc(ctx.codebaseSummary),
      },
      { env: deps.env },
    );
    const fix = await promptPass(
      deps,
      { agent: EXECUTOR, model: models.primary, title: `otto: fix verification of ${label} (${fixes})` },
      prompt,
    );
    const failed = taskFailedReason(fix.text);
    steps.push({
      name: `verification fix ${fixes} (primary)`,
      outcome:
        fix.error !== undefined ? `failed: ${errorLine(fix.error)}` : failed !== undefined ? `reported TASK_FAILED: ${failed}` : "done",
      model: fix.model,
      sessionID: fix.sessionID,
      dialog: fix.dialog,
      warning: fix.error !== undefined ? errorLine(fix.error) : undefined,
    });
    results = await runChecks(verify, options);
    rounds.push(results);
    steps.push({ name: `verification after fix ${fixes}`, outcome: describeRound(deps, results) });
  }
  const passed = results.length > 0 && blockingResults(deps, results).length === 0;
  const after = fixes > 0 ? ` after ${fixes} fix${fixes === 1 ? "" : "es"}` : "";
  const preExisting = passed && results.some((r) => !r.passed) ? ", failures pre-existing and not worse" : "";
  return {
    state: passed ? "passed" : "failed",
    line: `Verification: ${passed ? "passed" : "FAILED"}${after}${preExisting} (${describeRound(deps, results)})`,
    steps,
    rounds,
  };
}

/** Longest command quoted in a task's `last_error`; the full output is in the phase's history. */
const COMMAND_MAX = 80;

/**
 * Why the tasks of a phase whose verification stayed red are not done, for their `last_error`:
 * "spec.verify failed after 2 fixes: `npm test` exit 1".
 */
export function verifyFailure(outcome: VerifyOutcome, deps: Pick<ExecuteDeps, "checkBaseline"> = {}): string {
  const last = outcome.rounds.at(-1) ?? [];
  const fixes = outcome.rounds.length - 1;
  const failed = blockingResults(deps, last).map(
    (r) =>
      `\`${r.command.length > COMMAND_MAX ? `${r.command.slice(0, COMMAND_MAX - 1)}…` : r.command}\` ${r.timedOut ? "timed out" : `exit ${r.exitCode}`}`,
  );
  return `spec.verify failed${fixes > 0 ? ` after ${fixes} fix${fixes === 1 ? "" : "es"}` : ""}: ${failed.join(", ") || "no command ran"}`;
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
