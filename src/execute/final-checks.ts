import { judgeRun, runChecks, type RunVerdict } from "../workspace/index.ts";
import { writeStepRecord } from "./history.ts";
import type { ExecuteDeps, StepRecord } from "./types.ts";

/** Output of a failing check kept in the record. */
const RECORD_OUTPUT_MAX = 2_000;

/**
 * Every check once more at the end of a run, on the tree as the run leaves it, recorded in
 * history/verdict-<time>.md. Undefined when the project has no check (nothing can verify the run).
 */
export async function runFinalChecks(deps: ExecuteDeps, slug: string, historyDir: string): Promise<RunVerdict | undefined> {
  const { verify, verifyTimeoutMs } = deps.settings;
  if (verify.length === 0 || deps.signal?.aborted) return undefined;
  deps.progress("Verdict: running every check once more");
  const results = await runChecks(verify, { cwd: deps.repoRoot, timeoutMs: verifyTimeoutMs, signal: deps.signal, sandbox: deps.settings.sandbox ?? "auto", secrets: deps.secrets });
  const verdict = judgeRun(results, deps.checkBaseline);
  const steps: StepRecord[] = results.map((r) => ({
    name: r.command,
    outcome: r.passed ? "passed" : `${r.timedOut ? "timed out" : `exit ${r.exitCode}`}${verdict.failing.find((f) => f.command === r.command)?.before ? " (failed before the run too)" : ""}`,
    ...(r.passed ? {} : { dialog: `\`\`\`\n${r.output.length > RECORD_OUTPUT_MAX ? `… ${r.output.slice(-RECORD_OUTPUT_MAX)}` : r.output}\n\`\`\`` }),
  }));
  await writeStepRecord(historyDir, { slug, name: "verdict", heading: `Verdict: ${verdict.verified ? "verified" : "unverified"}`, at: deps.now(), steps }, deps.secrets);
  return verdict;
}
