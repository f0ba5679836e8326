import { formatError } from "../core/index.ts";
import { createPullRequest } from "../pr/index.ts";
import type { Runtime } from "../runtime.ts";

/**
 * `--pr` on execute and build: once the run is complete (every task done and verified), the PR is
 * opened the way `/otto-pr create --spec <slug>` opens it (a build of an OpenSpec change: described
 * by the primary model from the diff). A run that is not complete opens none,
 * and a PR that cannot be opened is reported without failing the run.
 */
export async function openPrAfterRun(
  runtime: Runtime,
  run: { slug?: string; repoRoot: string; complete: boolean; output: string },
  tool: { sessionID: string; abort?: AbortSignal },
  progress: (message: string) => void,
): Promise<string> {
  if (!run.complete) return `${run.output}\n\n## Pull request\n\nNot opened: the run is not complete (--pr opens it when every task is done and verified). Run again, then /otto-pr create${run.slug ? ` --spec ${run.slug}` : ""}.`;
  try {
    progress("otto: opening the pull request");
    const pr = await createPullRequest(runtime, { directory: run.repoRoot, ...(run.slug ? { spec: run.slug } : {}), now: new Date(), sessionID: tool.sessionID, ...(tool.abort ? { signal: tool.abort } : {}), progress });
    return `${run.output}\n\n## Pull request\n\n${pr.markdown}`;
  } catch (error) {
    return `${run.output}\n\n## Pull request\n\nNot opened: ${formatError(error).replace(/^Error: /, "")}`;
  }
}
