import type { Task } from "../spec/index.ts";
import { runCheck, type CheckResult } from "../workspace/index.ts";
import { formatDuration } from "./history.ts";
import type { ExecuteDeps } from "./types.ts";

/*
 * A task's acceptance check (tasks.md `verify`): after an attempt that showed evidence, the task's
 * own command runs in the tree, in the sandbox like every check of otto's, and the task completes
 * only when it exits 0. A failing check fails the attempt (the next one is told the output), so
 * "completed" means the task's outcome was shown, not only that its session said so.
 */

/** How much of a failing check's output the next attempt is shown. */
const OUTPUT_TAIL = 2_000;

export function runAcceptance(
  deps: Pick<ExecuteDeps, "repoRoot" | "settings" | "signal" | "secrets">,
  task: Task,
): Promise<CheckResult> | undefined {
  if (!task.verify) return undefined;
  return runCheck(task.verify, {
    cwd: deps.repoRoot,
    timeoutMs: deps.settings.verifyTimeoutMs,
    signal: deps.signal,
    sandbox: deps.settings.sandbox ?? "auto",
    secrets: deps.secrets,
  });
}

/** "`npm test -- a.test.ts` exit 0 (1.2s)": the `acceptance` field in tasks.md and the attempt's record. */
export function acceptanceField(result: CheckResult): string {
  return `\`${result.command}\` ${result.timedOut ? "timed out" : `exit ${result.exitCode}`} (${formatDuration(result.durationMs)})`;
}

/** The attempt's failure: the command and how it ended, then the end of its output (for the next attempt). */
export function acceptanceFailure(result: CheckResult): { reason: string; output: string } {
  const output = result.output.trim();
  return {
    reason: `acceptance check ${acceptanceField(result)}`,
    output: output.length > OUTPUT_TAIL ? `…${output.slice(-OUTPUT_TAIL)}` : output,
  };
}
