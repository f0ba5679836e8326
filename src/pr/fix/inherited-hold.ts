import { formatError, redact } from "../../core/index.ts";
import { fingerprintLog } from "./fingerprint.ts";
import { trimLog } from "./trim-log.ts";
import type { FixDeps, FixInput } from "./flow.ts";

/*
 * A PR whose failure the default branch has too waits (status failed, `inherited` in its document);
 * the watcher hands the failure back at each full poll. Before the fix is even claimed, this asks
 * the forge whether main still fails the same way: if so the run ends quietly (no claim, no log
 * line, no session); if main is green, or fails otherwise, the fix flow runs and judges again.
 */

export async function stillInherited(deps: FixDeps, input: FixInput): Promise<boolean> {
  const held = input.doc.data.inherited;
  const { pr, backend } = input;
  if (!held || held.sha !== pr.headSha || !backend.baseCheck || !deps.config.pr.flakes.enabled) return false;
  const failed = input.pipeline.checks
    .filter((c) => c.state === "failure")
    .map((c) => c.name)
    .sort();
  if (
    failed.join("\n") !==
    held.checks
      .map((c) => c.name)
      .sort()
      .join("\n")
  )
    return false;
  try {
    for (const check of held.checks) {
      const base = await backend.baseCheck(pr, check.name, deps.signal ? { signal: deps.signal } : {});
      if (!base || base.state !== "failure") return false;
      if (base.sha === check.base_sha) continue;
      if (!base.logId) return false;
      const log = trimLog(redact(await backend.getBuildLogs(pr, base.logId), deps.secrets));
      if (fingerprintLog(log)?.id !== check.fingerprint) return false;
    }
    return true;
  } catch (error) {
    deps.signal?.throwIfAborted();
    deps.log("warn", `could not ask whether ${pr.targetBranch} is still red for ${input.doc.key}`, {
      error: redact(formatError(error), deps.secrets),
    });
    return false;
  }
}
