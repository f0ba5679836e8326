import type { IncomingRequest, Reply } from "../fake-http.ts";
import { minimalRepository, type Urls } from "./payloads.ts";
import type { CheckSpec, FakeCheckRun, GithubState } from "./state.ts";

/*
 * GitHub Actions runs on a branch (the default branch's own CI, which the fix flow compares a PR's
 * failure with): a test pushes a run of checks onto a branch's commit, and the fake answers
 * https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-repository from the
 * check runs of those commits. The check runs themselves live in GithubState like a PR's.
 */

/** The branch of each commit a test ran checks on, per fake (the state knows only PRs' heads). */
const branches = new WeakMap<GithubState, Array<{ owner: string; repo: string; branch: string; sha: string }>>();

/** Checks of `branch` at commit `sha` (e.g. main's CI), in octo/app unless named. */
export function runOnBranch(
  state: GithubState,
  input: { branch?: string; sha?: string; owner?: string; repo?: string; checks: CheckSpec[] },
): { sha: string; runs: FakeCheckRun[] } {
  const owner = input.owner ?? "octo";
  const repo = input.repo ?? "app";
  const sha = input.sha ?? state.sha();
  const list = branches.get(state) ?? [];
  list.push({ owner, repo, branch: input.branch ?? "main", sha });
  branches.set(state, list);
  // setChecks takes the PR only for its repository.
  state.setChecks({ owner, repo } as Parameters<GithubState["setChecks"]>[0], input.checks, sha);
  return { sha, runs: state.checkRuns.filter((r) => r.head_sha === sha) };
}

function workflowRun(state: GithubState, runs: FakeCheckRun[], branch: string, urls: Urls) {
  const first = runs[0]!;
  const repoUrl = `${urls.api}/repos/${first.owner}/${first.repo}`;
  const done = runs.every((r) => r.status === "completed");
  const failed = runs.some((r) => r.conclusion === "failure" || r.conclusion === "timed_out");
  const repository = minimalRepository(state, first.owner, first.repo, urls);
  return {
    id: first.run_id,
    name: "CI",
    node_id: Buffer.from(`WorkflowRun:${first.run_id}`).toString("base64"),
    head_branch: branch,
    head_sha: first.head_sha,
    path: ".github/workflows/ci.yml",
    run_number: first.run_id - 9000,
    run_attempt: 1,
    display_title: "CI",
    event: "push",
    status: done ? "completed" : "in_progress",
    conclusion: done ? (failed ? "failure" : "success") : null,
    workflow_id: 1,
    url: `${repoUrl}/actions/runs/${first.run_id}`,
    html_url: `${urls.web}/${first.owner}/${first.repo}/actions/runs/${first.run_id}`,
    pull_requests: [],
    created_at: first.started_at,
    updated_at: first.completed_at ?? first.started_at,
    jobs_url: `${repoUrl}/actions/runs/${first.run_id}/jobs`,
    logs_url: `${repoUrl}/actions/runs/${first.run_id}/logs`,
    check_suite_url: `${repoUrl}/check-suites/${first.run_id + 1}`,
    cancel_url: `${repoUrl}/actions/runs/${first.run_id}/cancel`,
    rerun_url: `${repoUrl}/actions/runs/${first.run_id}/rerun`,
    artifacts_url: `${repoUrl}/actions/runs/${first.run_id}/artifacts`,
    workflow_url: `${repoUrl}/actions/workflows/1`,
    head_commit: {
      id: first.head_sha,
      tree_id: first.head_sha,
      message: "Change",
      timestamp: first.started_at,
      author: { name: "Dev", email: "dev@example.com" },
      committer: { name: "Dev", email: "dev@example.com" },
    },
    repository,
    head_repository: repository,
  };
}

/** GET /repos/{owner}/{repo}/actions/runs?branch=&status=: the runs (one per commit and run id) of a branch, newest first. */
export function listWorkflowRuns(state: GithubState, p: Record<string, string>, req: IncomingRequest, urls: Urls): Reply {
  const branch = req.query.get("branch");
  const status = req.query.get("status");
  const perPage = Math.min(Number(req.query.get("per_page") ?? 30), 100);
  const commits = (branches.get(state) ?? []).filter((c) => c.owner === p.owner && c.repo === p.repo && (!branch || c.branch === branch));
  const runs = commits
    .flatMap((c) => {
      const byRun = new Map<number, FakeCheckRun[]>();
      for (const r of state.checkRuns.filter((r) => r.head_sha === c.sha)) byRun.set(r.run_id, [...(byRun.get(r.run_id) ?? []), r]);
      return [...byRun.values()].map((rs) => workflowRun(state, rs, c.branch, urls));
    })
    .filter((r) => !status || r.status === status || r.conclusion === status)
    .sort((a, b) => b.id - a.id);
  return { status: 200, body: { total_count: runs.length, workflow_runs: runs.slice(0, perPage) } };
}
