import type { BaseCheck, CallOptions } from "../backend.ts";
import type { PrInfo } from "../types.ts";
import { repoParams } from "./locate.ts";
import { runCheck, type CheckRunPayload } from "./map.ts";
import type { GithubClient } from "./octokit.ts";

/*
 * The default branch's newest completed run of one check (GitHub): the branch's completed workflow
 * runs, newest first (https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-repository),
 * then the check runs of that name on their commits
 * (https://docs.github.com/en/rest/checks/runs#list-check-runs-for-a-git-reference), until one is found.
 */

/** Commits looked at: the newest completed runs usually hold the check; older ones say little about main today. */
const MAX_COMMITS = 3;

export async function githubBaseCheck(
  octokit: GithubClient,
  pr: PrInfo,
  name: string,
  options: CallOptions = {},
): Promise<BaseCheck | undefined> {
  const request = options.signal ? { request: { signal: options.signal } } : {};
  const { data } = await octokit.request("GET /repos/{owner}/{repo}/actions/runs", {
    ...repoParams(pr),
    branch: pr.targetBranch,
    status: "completed",
    per_page: 20,
    ...request,
  });
  const shas = [...new Set(data.workflow_runs.map((r) => r.head_sha))].slice(0, MAX_COMMITS);
  for (const sha of shas) {
    const runs = await octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", {
      ...repoParams(pr),
      ref: sha,
      check_name: name,
      status: "completed",
      filter: "latest",
      ...request,
    });
    const run = runs.data.check_runs[0] as CheckRunPayload | undefined;
    if (!run) continue;
    const check = runCheck(run);
    return { state: check.state, sha, ...(check.logId ? { logId: check.logId } : {}), ...(check.url ? { url: check.url } : {}) };
  }
  return undefined;
}
