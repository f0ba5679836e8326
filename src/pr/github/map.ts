import { overallState } from "../pipeline.ts";
import type { Check, CheckState, PipelineStatus, PrComment, PrInfo, PrLocator, PrReview } from "../types.ts";

/*
 * Pure mapping from GitHub REST payloads to otto's model. The input types name only the fields
 * read here, so the full Octokit types fit and tests can pass small objects.
 */

export interface PullPayload {
  number: number;
  html_url: string;
  title: string;
  body?: string | null;
  state: string;
  draft?: boolean;
  merged_at: string | null;
  created_at: string;
  updated_at?: string;
  node_id: string;
  user: { login: string } | null;
  head: { ref: string; sha: string; repo?: { full_name: string } | null };
  base: { ref: string; repo?: { full_name: string } };
}

/**
 * Whether the head branch is in another repository. A deleted fork (`head.repo` null) counts as
 * one: there is nothing otto could push to.
 */
function forkOf(pull: PullPayload): { fork?: boolean; headRepo?: string } {
  const head = pull.head.repo;
  const base = pull.base.repo?.full_name;
  if (head === undefined || base === undefined) return {};
  if (head === null) return { fork: true };
  return head.full_name.toLowerCase() === base.toLowerCase() ? { fork: false } : { fork: true, headRepo: head.full_name };
}

export function mapPull(locator: PrLocator, pull: PullPayload): PrInfo {
  return {
    ...locator,
    url: pull.html_url,
    title: pull.title,
    description: pull.body ?? "",
    state: pull.merged_at ? "merged" : pull.state === "closed" ? "closed" : "open",
    draft: pull.draft === true,
    sourceBranch: pull.head.ref,
    targetBranch: pull.base.ref,
    headSha: pull.head.sha,
    author: pull.user?.login ?? "ghost",
    createdAt: pull.created_at,
    meta: { nodeId: pull.node_id },
    ...forkOf(pull),
    ...(pull.updated_at ? { updatedAt: pull.updated_at } : {}),
  };
}

export interface CheckRunPayload {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  started_at: string | null;
  html_url: string | null;
  output: { title: string | null; summary: string | null };
  app: { slug?: string } | null;
}

export interface StatusPayload {
  context: string;
  state: string;
  description: string | null;
  target_url: string | null;
}

// https://docs.github.com/en/rest/checks/runs#get-a-check-run (status and conclusion values)
function checkRunState(run: CheckRunPayload): CheckState {
  if (run.status !== "completed") return "pending";
  switch (run.conclusion) {
    case "success":
      return "success";
    case "neutral":
    case "skipped":
      return "skipped";
    case "stale":
      return "pending";
    default:
      return "failure";
  }
}

// https://docs.github.com/en/rest/commits/statuses: error, failure, pending, success
function statusState(state: string): CheckState {
  if (state === "success") return "success";
  return state === "pending" ? "pending" : "failure";
}

/** The newest run of each check name (a re-run replaces the run it repeats). */
export function latestPerName(runs: readonly CheckRunPayload[]): CheckRunPayload[] {
  const byName = new Map<string, CheckRunPayload>();
  for (const run of runs) {
    const seen = byName.get(run.name);
    const newer =
      !seen || (run.started_at ?? "") > (seen.started_at ?? "") || ((run.started_at ?? "") === (seen.started_at ?? "") && run.id > seen.id);
    if (newer) byName.set(run.name, run);
  }
  return [...byName.values()];
}

export function runCheck(run: CheckRunPayload): Check {
  const state = checkRunState(run);
  const detail = state === "failure" ? (run.output.title ?? run.conclusion ?? undefined) : undefined;
  return {
    name: run.name,
    state,
    ...(detail ? { detail } : {}),
    ...(run.html_url ? { url: run.html_url } : {}),
    // An Actions check run's id is its job id: https://docs.github.com/en/rest/actions/workflow-jobs
    ...(run.app?.slug === "github-actions" ? { logId: String(run.id) } : {}),
  };
}

/** Pipeline state from check runs (latest per name) merged with the combined commit status. */
export function mergeChecks(headSha: string, runs: readonly CheckRunPayload[], statuses: readonly StatusPayload[]): PipelineStatus {
  const checks: Check[] = [
    ...latestPerName(runs).map(runCheck),
    ...statuses.map((s): Check => ({
      name: s.context,
      state: statusState(s.state),
      ...(s.description && s.state !== "success" ? { detail: s.description } : {}),
      ...(s.target_url ? { url: s.target_url } : {}),
    })),
  ].sort((a, b) => a.name.localeCompare(b.name));
  return { state: overallState(checks), headSha, checks };
}

export interface IssueCommentPayload {
  id: number;
  body?: string;
  user: { login: string } | null;
  created_at: string;
  html_url: string;
  /** Absent in ETag caches written before otto read it: then the permission API decides. */
  author_association?: string;
}

export interface ReviewCommentPayload extends IssueCommentPayload {
  body: string;
  path: string;
  line?: number | null;
  original_line?: number | null;
  in_reply_to_id?: number;
}

/** Review thread state by review comment id (GraphQL `databaseId`). */
export type ThreadMap = Record<string, { threadId: string; resolved: boolean }>;

export function mapComments(
  issue: readonly IssueCommentPayload[],
  review: readonly ReviewCommentPayload[],
  threads: ThreadMap,
): PrComment[] {
  const conversation = issue.map((c): PrComment => ({
    id: `issue-${c.id}`,
    kind: "conversation",
    author: c.user?.login ?? "ghost",
    body: c.body ?? "",
    createdAt: c.created_at,
    resolved: false,
    url: c.html_url,
    ...(c.author_association ? { association: c.author_association } : {}),
  }));
  const inline = review.map((c): PrComment => {
    const line = c.line ?? c.original_line ?? undefined;
    return {
      id: `review-${c.id}`,
      kind: "inline",
      author: c.user?.login ?? "ghost",
      body: c.body,
      createdAt: c.created_at,
      path: c.path,
      ...(line ? { line } : {}),
      resolved: threads[String(c.id)]?.resolved ?? false,
      ...(c.in_reply_to_id ? { inReplyTo: `review-${c.in_reply_to_id}` } : {}),
      // GitHub's outdated comment: a later commit changed its lines, so it has no line on the head.
      // https://docs.github.com/en/rest/pulls/comments#get-a-review-comment-for-a-pull-request (line, original_line)
      ...(c.line == null && c.original_line ? { outdated: true } : {}),
      url: c.html_url,
      ...(c.author_association ? { association: c.author_association } : {}),
    };
  });
  return [...conversation, ...inline].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/*
 * The ETag cache keeps only the fields above, not GitHub's full payloads (check runs carry their
 * whole output), so a PR's cache file stays a few kilobytes.
 */
export const compactRun = (r: CheckRunPayload): CheckRunPayload => ({
  id: r.id,
  name: r.name,
  status: r.status,
  conclusion: r.conclusion,
  started_at: r.started_at,
  html_url: r.html_url,
  output: { title: r.output.title, summary: null },
  app: r.app ? { ...(r.app.slug ? { slug: r.app.slug } : {}) } : null,
});

export const compactStatus = (s: StatusPayload): StatusPayload => ({
  context: s.context,
  state: s.state,
  description: s.description,
  target_url: s.target_url,
});

export const compactIssueComment = (c: IssueCommentPayload): IssueCommentPayload => ({
  id: c.id,
  body: c.body ?? "",
  user: c.user ? { login: c.user.login } : null,
  created_at: c.created_at,
  html_url: c.html_url,
  ...(c.author_association ? { author_association: c.author_association } : {}),
});

export const compactReviewComment = (c: ReviewCommentPayload): ReviewCommentPayload => ({
  ...compactIssueComment(c),
  body: c.body,
  path: c.path,
  line: c.line ?? null,
  original_line: c.original_line ?? null,
  ...(c.in_reply_to_id ? { in_reply_to_id: c.in_reply_to_id } : {}),
});

export interface ReviewPayload {
  user: { login: string } | null;
  state: string;
  author_association: string;
  submitted_at?: string | null;
}

// https://docs.github.com/en/rest/pulls/reviews#list-reviews-for-a-pull-request (state values)
const REVIEW_STATES: Record<string, PrReview["state"]> = {
  APPROVED: "approved",
  CHANGES_REQUESTED: "changes_requested",
  COMMENTED: "commented",
  DISMISSED: "dismissed",
  PENDING: "pending",
};

export function mapReview(review: ReviewPayload): PrReview {
  return {
    author: review.user?.login ?? "ghost",
    association: review.author_association,
    state: REVIEW_STATES[review.state.toUpperCase()] ?? "commented",
    ...(review.submitted_at ? { submittedAt: review.submitted_at } : {}),
  };
}
