import type { PrBackend } from "../backend.ts";
import type { PrInfo, WorkflowAction, WorkflowResult } from "../types.ts";
import { getAllPages } from "./conditional.ts";
import { repoParams } from "./locate.ts";
import type { GithubClient } from "./octokit.ts";

/* The GitHub backend's lookups for posted markers and its one workflow step (re-running failed jobs). */

/** Whether any listed item (a comment, a review) carries otto's post marker in its body. */
export function hasMarker(items: readonly unknown[], marker: string): boolean {
  return items.some((item) => {
    const body = (item as { body?: unknown }).body;
    return typeof body === "string" && body.includes(marker);
  });
}

export async function issueCommentsHave(octokit: GithubClient, pr: PrInfo, marker: string): Promise<boolean> {
  return hasMarker(
    await getAllPages(octokit, "GET /repos/{owner}/{repo}/issues/{issue_number}/comments", { ...repoParams(pr), issue_number: pr.number }),
    marker,
  );
}

export async function reviewCommentsHave(octokit: GithubClient, pr: PrInfo, marker: string): Promise<boolean> {
  return hasMarker(
    await getAllPages(octokit, "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments", { ...repoParams(pr), pull_number: pr.number }),
    marker,
  );
}

export async function runGithubWorkflow(
  octokit: GithubClient,
  backend: PrBackend,
  pr: PrInfo,
  action: WorkflowAction,
): Promise<WorkflowResult> {
  if (action !== "rerun_failed") return { done: false, message: `GitHub has no ${action.replace(/_/g, " ")} step; nothing to do.` };
  const status = await backend.getPipelineStatus(pr);
  const jobs = status.checks.filter((c) => c.state === "failure" && c.logId !== undefined);
  const runs = new Set<number>();
  for (const job of jobs) {
    const { data } = await octokit.request("GET /repos/{owner}/{repo}/actions/jobs/{job_id}", {
      ...repoParams(pr),
      job_id: Number(job.logId),
    });
    runs.add(Number(data.run_id));
  }
  for (const run of runs) {
    try {
      await octokit.request("POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs", { ...repoParams(pr), run_id: run });
    } catch (error) {
      // A token with actions: read (otto's CI job unless pr.flakes.rerun is on) may read the logs but
      // not re-run: the caller asks a person to, as Azure DevOps without "Queue builds".
      if ((error as { status?: unknown }).status !== 403) throw error;
      return {
        done: false,
        message: `GitHub refused to re-run the failed jobs (403): the token may not write Actions (a CI job has actions: write only with pr.flakes.rerun on). Re-run them from the PR's Checks tab.`,
      };
    }
  }
  return {
    done: runs.size > 0,
    message: runs.size > 0 ? `Re-ran the failed jobs of ${runs.size} workflow run(s).` : "No failed GitHub Actions jobs to re-run.",
  };
}
