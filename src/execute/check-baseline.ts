import { describeResolvedChecks } from "../analysis/index.ts";
import { describeBaseline, runChecks, type CheckResult } from "../workspace/index.ts";
import { writeStepRecord } from "./history.ts";
import type { ExecuteDeps, StepRecord } from "./types.ts";

/** Output of one failing baseline check kept in the run record; the check's own cap is larger. */
const RECORD_OUTPUT_MAX = 2_000;

export interface Baseline {
  results: CheckResult[];
  /** "baseline: npm test: exit 1 (pre-existing, 2 failures)" for the run's summary. */
  line: string;
}

/**
 * The checks once on the tree as the run found it, before any session touched it, recorded in
 * history/baseline-<time>.md. What fails here is the project's, not the run's: verification
 * then fails a phase only on a new failure or a worse one (compareToBaseline).
 */
export async function runBaseline(deps: ExecuteDeps, slug: string, historyDir: string): Promise<Baseline | undefined> {
  const { verify, verifyTimeoutMs } = deps.settings;
  if (verify.length === 0 || deps.signal?.aborted) return undefined;
  deps.progress("Baseline: running the checks on the untouched tree");
  const results = await runChecks(verify, {
    cwd: deps.repoRoot,
    timeoutMs: verifyTimeoutMs,
    signal: deps.signal,
    sandbox: deps.settings.sandbox ?? "auto",
  });
  const line = describeBaseline(results);
  const steps: StepRecord[] = [];
  if (deps.settings.checks) steps.push({ name: "checks", outcome: describeResolvedChecks(deps.settings.checks).replace(/^checks: /, "") });
  steps.push({ name: "baseline", outcome: line.replace(/^baseline: /, "") });
  for (const r of results.filter((x) => !x.passed)) {
    const output = r.output.length > RECORD_OUTPUT_MAX ? `… ${r.output.slice(-RECORD_OUTPUT_MAX)}` : r.output;
    steps.push({
      name: `baseline output of ${r.command}`,
      outcome: r.timedOut ? "timed out" : `exit ${r.exitCode}`,
      dialog: `\`\`\`\n${output}\n\`\`\``,
    });
  }
  await writeStepRecord(historyDir, { slug, name: "baseline", heading: "Baseline of the checks", at: deps.now(), steps }, deps.secrets);
  return { results, line };
}
