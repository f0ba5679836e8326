import { judgeRun, runChecks, type RunVerdict } from "../workspace/index.ts";
import type { ExecuteDeps } from "./types.ts";

/**
 * Every check once more at the end of a run, on the tree as the run leaves it. The verdict goes in
 * the run's summary (a history file written now would be left uncommitted after the run's last
 * commit). Undefined when the project has no check (nothing can verify the run).
 */
export async function runFinalChecks(deps: ExecuteDeps): Promise<RunVerdict | undefined> {
  const { verify, verifyTimeoutMs } = deps.settings;
  if (verify.length === 0 || deps.signal?.aborted) return undefined;
  deps.progress("Verdict: running every check once more");
  const results = await runChecks(verify, {
    cwd: deps.repoRoot,
    timeoutMs: verifyTimeoutMs,
    signal: deps.signal,
    sandbox: deps.settings.sandbox ?? "auto",
    secrets: deps.secrets,
  });
  return judgeRun(results, deps.checkBaseline);
}
