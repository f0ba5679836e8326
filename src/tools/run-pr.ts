import { errorText } from "../core/index.ts";
import { loadConfig } from "../config/index.ts";
import { createPullRequest } from "../pr/index.ts";
import type { Runtime } from "../runtime.ts";
import { describeControlChanges, gitControlChanges, type GitControlSnapshot } from "../workspace/index.ts";

/**
 * `--pr` on execute and build: once the run is complete (every task done and verified), the PR is
 * opened the way `/otto-pr create --spec <slug>` opens it (a build of an OpenSpec change: described
 * by the primary model from the diff). A run that is not complete opens none,
 * and a PR that cannot be opened is reported without failing the run.
 */
export async function openPrAfterRun(
  runtime: Runtime,
  run: { slug?: string; repoRoot: string; complete: boolean; output: string; gitControl: GitControlSnapshot; unverified?: string },
  tool: { sessionID: string; abort?: AbortSignal },
  progress: (message: string) => void,
): Promise<string> {
  if (!run.complete)
    return `${run.output}\n\n## Pull request\n\nNot opened: the run is not complete (--pr opens it when every task is done and verified). Run again, then /otto-pr create${run.slug ? ` --spec ${run.slug}` : ""}.`;
  // A run whose checks fail at its end is not done: no PR, or a draft that says so (pr.open_unverified).
  let draft = false;
  if (run.unverified) {
    const { config } = await loadConfig({ directory: run.repoRoot, env: runtime.env, runtime });
    if (config.pr.open_unverified !== "draft") {
      return `${run.output}\n\n## Pull request\n\nNot opened: the run is unverified (${run.unverified} at its end). Fix it and run again, or open a draft yourself with /otto-pr create --draft${run.slug ? ` --spec ${run.slug}` : ""} (pr.open_unverified: "draft" does that with --pr).`;
    }
    draft = true;
  }
  // Sessions worked in this checkout: a hook or push URL one of them planted would run with the
  // user's credentials on otto's push, so otto pushes only from a checkout whose git control is as it was.
  const tampered = await gitControlChanges(run.gitControl, { env: runtime.env });
  if (tampered.length > 0)
    return `${run.output}\n\n## Pull request\n\nNot opened: ${describeControlChanges(run.repoRoot, tampered)} Then /otto-pr create${run.slug ? ` --spec ${run.slug}` : ""}.`;
  try {
    progress("otto: opening the pull request");
    const pr = await createPullRequest(runtime, {
      directory: run.repoRoot,
      ...(run.slug ? { spec: run.slug } : {}),
      ...(draft ? { draft: true } : {}),
      now: new Date(),
      sessionID: tool.sessionID,
      ...(tool.abort ? { signal: tool.abort } : {}),
      progress,
    });
    return `${run.output}\n\n## Pull request\n\n${draft ? `Opened as a draft: the run is unverified (${run.unverified ?? ""} at its end).\n\n` : ""}${pr.markdown}`;
  } catch (error) {
    return `${run.output}\n\n## Pull request\n\nNot opened: ${errorText(error)}`;
  }
}
