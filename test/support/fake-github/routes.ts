import type { IncomingRequest, Reply } from "../fake-http.ts";
import {
  authenticatedUser,
  checkRun,
  collaboratorPermission,
  combinedStatus,
  issue,
  issueComment,
  job,
  pullRequest,
  pullRequestSimple,
  review,
  reviewComment,
  type Urls,
} from "./payloads.ts";
import type { GithubState, ReviewState } from "./state.ts";
import { listWorkflowRuns } from "./branch-runs.ts";

/*
 * REST routes of the fake (paths relative to the API base) and the GraphQL subset otto uses
 * (review threads, resolveReviewThread). Unknown routes answer 404 like GitHub does.
 */

const NOT_FOUND: Reply = { status: 404, body: { message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" } };

type Params = Record<string, string>;
type Route = { method: string; pattern: RegExp; names: string[]; run: (p: Params, req: IncomingRequest) => Reply };

function route(method: string, template: string, run: Route["run"]): Route {
  const names: string[] = [];
  const pattern = new RegExp(`^${template.replace(/\{(\w+)\}/g, (_m, name: string) => (names.push(name), "([^/]+)"))}$`);
  return { method, pattern, names, run };
}

function page<T>(items: T[], query: URLSearchParams): T[] {
  const perPage = Math.min(Number(query.get("per_page") ?? 30), 100);
  const n = Number(query.get("page") ?? 1);
  return items.slice((n - 1) * perPage, n * perPage);
}

/** A Link header for the next page, as GitHub sends it. */
function linkHeader(total: number, req: IncomingRequest, apiBase: string): Record<string, string> {
  const perPage = Math.min(Number(req.query.get("per_page") ?? 30), 100);
  const n = Number(req.query.get("page") ?? 1);
  if (n * perPage >= total) return {};
  const next = new URLSearchParams(req.query);
  next.set("page", String(n + 1));
  return { link: `<${apiBase}${req.path}?${next.toString()}>; rel="next"` };
}

export function githubRoutes(state: GithubState, urls: Urls, prefix: string): Route[] {
  const prOf = (p: Params) => state.pr(p.owner ?? "", p.repo ?? "", Number(p.number));
  const ofPr = <T extends { owner: string; repo: string; number: number }>(items: T[], p: Params) =>
    items.filter(
      (c) =>
        c.owner.toLowerCase() === p.owner?.toLowerCase() && c.repo.toLowerCase() === p.repo?.toLowerCase() && c.number === Number(p.number),
    );
  const user = (req: IncomingRequest) => state.user(req.headers["x-fake-user"] ?? "otto-bot");
  return [
    route("GET", "/user", (_p, req) => ({ status: 200, body: authenticatedUser(user(req), urls) })),
    // https://docs.github.com/en/rest/users/users#get-a-user: an App's bot is `<slug>[bot]`, of type Bot.
    route("GET", "/users/{username}", (p) => ({
      status: 200,
      body: { ...authenticatedUser(state.user(p.username ?? ""), urls), ...(p.username?.endsWith("[bot]") ? { type: "Bot" } : {}) },
    })),
    route("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission", (p) => ({
      status: 200,
      body: collaboratorPermission(state.user(p.username ?? ""), state.permissionOf(p.username ?? ""), urls),
    })),
    // https://docs.github.com/en/rest/pulls/pulls#list-pull-requests (head is `owner:branch`)
    route("GET", "/repos/{owner}/{repo}/pulls", (p, req) => {
      const head = req.query.get("head");
      const wanted = req.query.get("state") ?? "open";
      const filtered = state.prs.filter(
        (pr) =>
          pr.owner.toLowerCase() === p.owner?.toLowerCase() &&
          pr.repo.toLowerCase() === p.repo?.toLowerCase() &&
          (wanted === "all" || pr.state === wanted) &&
          (!head || `${pr.headRepo?.owner ?? pr.owner}:${pr.head.ref}`.toLowerCase() === head.toLowerCase()),
      );
      // sort created or updated; direction defaults to desc for created, asc otherwise (as documented). Without
      // sort the fake keeps the order PRs were added in (GitHub: newest first), which no caller relies on.
      const sort = req.query.get("sort");
      const key = sort === "updated" ? "updated_at" : "created_at";
      const asc = (req.query.get("direction") ?? (sort === "updated" ? "asc" : "desc")) === "asc";
      const prs = sort ? [...filtered].sort((a, b) => (asc ? 1 : -1) * (a[key].localeCompare(b[key]) || a.number - b.number)) : filtered;
      return {
        status: 200,
        body: page(prs, req.query).map((pr) => pullRequestSimple(state, pr, urls)),
        headers: linkHeader(prs.length, req, urls.api),
      };
    }),
    // https://docs.github.com/en/rest/pulls/pulls#create-a-pull-request
    route("POST", "/repos/{owner}/{repo}/pulls", (p, req) => {
      const input = (req.body ?? {}) as { head?: string; base?: string; title?: string; body?: string; draft?: boolean };
      const invalid = (message: string): Reply => ({
        status: 422,
        body: {
          message: "Validation Failed",
          errors: [{ resource: "PullRequest", code: "custom", message }],
          documentation_url: "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
          status: "422",
        },
      });
      if (!input.head || !input.base || !input.title) return invalid("head, base and title are required");
      const owner = p.owner ?? "";
      const repo = p.repo ?? "";
      if (
        state.prs.some(
          (pr) => pr.owner === owner && pr.repo === repo && pr.state === "open" && pr.head.ref === input.head && pr.base.ref === input.base,
        )
      ) {
        return invalid(`A pull request already exists for ${owner}:${input.head}.`);
      }
      const login = req.headers["x-fake-user"] ?? "otto-bot";
      const created = state.addPr({
        owner,
        repo,
        number: state.nextNumber(owner, repo),
        title: input.title,
        branch: input.head,
        base: input.base,
        author: login,
        draft: input.draft ?? false,
        body: input.body ?? "",
      });
      return { status: 201, body: pullRequest(state, created, urls) };
    }),
    // https://docs.github.com/en/rest/pulls/review-requests#request-reviewers-for-a-pull-request
    route("POST", "/repos/{owner}/{repo}/pulls/{number}/requested_reviewers", (p, req) => {
      const pr = prOf(p);
      if (!pr) return NOT_FOUND;
      const reviewers = ((req.body ?? {}) as { reviewers?: string[] }).reviewers ?? [];
      state.requestedReviewers.set(pr.number, [...new Set([...(state.requestedReviewers.get(pr.number) ?? []), ...reviewers])]);
      // GitHub answers the pull-request-simple shape here, not the full pull request.
      return { status: 201, body: pullRequestSimple(state, pr, urls) };
    }),
    route("GET", "/repos/{owner}/{repo}/pulls/{number}", (p) => {
      const pr = prOf(p);
      return pr ? { status: 200, body: pullRequest(state, pr, urls) } : NOT_FOUND;
    }),
    route("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", (p, req) => {
      // check_name and status narrow the list as on GitHub (https://docs.github.com/en/rest/checks/runs#list-check-runs-for-a-git-reference).
      const name = req.query.get("check_name");
      const status = req.query.get("status");
      const runs = state.checkRuns.filter(
        (r) =>
          r.head_sha === p.ref &&
          r.owner === p.owner &&
          r.repo === p.repo &&
          (!name || r.name === name) &&
          (!status || r.status === status),
      );
      return { status: 200, body: { total_count: runs.length, check_runs: page(runs, req.query).map((r) => checkRun(state, r, urls)) } };
    }),
    route("GET", "/repos/{owner}/{repo}/commits/{ref}/status", (p) => {
      const statuses = state.statuses.filter((s) => s.sha === p.ref);
      return { status: 200, body: combinedStatus(state, p.owner ?? "", p.repo ?? "", p.ref ?? "", statuses, urls) };
    }),
    route("GET", "/repos/{owner}/{repo}/issues/{number}/comments", (p, req) => {
      // GitHub answers 404 for an issue that does not exist, not an empty list.
      if (!prOf(p)) return NOT_FOUND;
      const all = ofPr(state.comments, p);
      return {
        status: 200,
        headers: linkHeader(all.length, req, urls.api.replace(new RegExp(`${prefix}$`), "")),
        body: page(all, req.query).map((c) => issueComment(c, urls)),
      };
    }),
    route("POST", "/repos/{owner}/{repo}/issues/{number}/comments", (p, req) => {
      const pr = prOf(p);
      if (!pr) return NOT_FOUND;
      const body = (req.body as { body?: string } | undefined)?.body;
      if (!body)
        return {
          status: 422,
          body: { message: "Validation Failed", errors: [{ resource: "IssueComment", code: "missing_field", field: "body" }] },
        };
      const comment = state.addComment(pr, body, user(req).login);
      return {
        status: 201,
        headers: { location: `${urls.api}/repos/${pr.owner}/${pr.repo}/issues/comments/${comment.id}` },
        body: issueComment(comment, urls),
      };
    }),
    // https://docs.github.com/en/rest/issues/issues#create-an-issue: numbered with the repository's PRs.
    route("POST", "/repos/{owner}/{repo}/issues", (p, req) => {
      const owner = p.owner ?? "";
      const repo = p.repo ?? "";
      if (!state.prs.some((x) => x.owner.toLowerCase() === owner.toLowerCase() && x.repo.toLowerCase() === repo.toLowerCase()))
        return NOT_FOUND;
      const body = req.body as { title?: string; body?: string } | undefined;
      if (!body?.title)
        return {
          status: 422,
          body: { message: "Validation Failed", errors: [{ resource: "Issue", code: "missing_field", field: "title" }] },
        };
      const created = {
        id: state.nextId(),
        owner,
        repo,
        number: state.nextNumber(owner, repo),
        title: body.title,
        body: body.body ?? null,
        user: user(req),
        created_at: state.time(),
      };
      state.issues.push(created);
      return {
        status: 201,
        headers: { location: `${urls.api}/repos/${owner}/${repo}/issues/${created.number}` },
        body: issue(created, urls),
      };
    }),
    route("GET", "/repos/{owner}/{repo}/issues/comments/{id}", (p) => {
      const comment = state.comments.find((c) => c.id === Number(p.id));
      return comment ? { status: 200, body: issueComment(comment, urls) } : NOT_FOUND;
    }),
    // https://docs.github.com/en/rest/issues/comments#update-an-issue-comment
    route("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}", (p, req) => {
      const comment = state.comments.find(
        (c) => c.id === Number(p.id) && c.owner.toLowerCase() === p.owner?.toLowerCase() && c.repo.toLowerCase() === p.repo?.toLowerCase(),
      );
      if (!comment) return NOT_FOUND;
      const body = (req.body as { body?: string } | undefined)?.body;
      if (!body)
        return {
          status: 422,
          body: { message: "Validation Failed", errors: [{ resource: "IssueComment", code: "missing_field", field: "body" }] },
        };
      comment.body = body;
      state.edits.push(comment.id);
      return { status: 200, body: issueComment(comment, urls) };
    }),
    route("GET", "/repos/{owner}/{repo}/pulls/{number}/comments", (p, req) => {
      const all = ofPr(state.reviewComments, p);
      return {
        status: 200,
        headers: linkHeader(all.length, req, urls.api.replace(new RegExp(`${prefix}$`), "")),
        body: page(all, req.query).map((c) => reviewComment(c, urls)),
      };
    }),
    route("POST", "/repos/{owner}/{repo}/pulls/{number}/comments", (p, req) => {
      const pr = prOf(p);
      const input = req.body as { body?: string; path?: string; line?: number; side?: "LEFT" | "RIGHT"; commit_id?: string } | undefined;
      if (!pr) return NOT_FOUND;
      if (!input?.body || !input.path || !input.line || !input.commit_id) return { status: 422, body: { message: "Validation Failed" } };
      const comment = state.addReviewComment(pr, {
        path: input.path,
        line: input.line,
        body: input.body,
        author: user(req).login,
        ...(input.side ? { side: input.side } : {}),
      });
      return { status: 201, body: reviewComment(comment, urls) };
    }),
    route("POST", "/repos/{owner}/{repo}/pulls/{number}/comments/{id}/replies", (p, req) => {
      const pr = prOf(p);
      const parent = state.reviewComments.find((c) => c.id === Number(p.id));
      if (!pr || !parent) return NOT_FOUND;
      const comment = state.addReviewComment(pr, {
        path: parent.path,
        line: parent.line,
        body: (req.body as { body: string }).body,
        author: user(req).login,
        inReplyTo: parent.id,
      });
      return { status: 201, body: reviewComment(comment, urls) };
    }),
    route("GET", "/repos/{owner}/{repo}/pulls/{number}/reviews", (p, req) => {
      if (!prOf(p)) return NOT_FOUND;
      const all = ofPr(state.reviews, p);
      return {
        status: 200,
        headers: linkHeader(all.length, req, urls.api.replace(new RegExp(`${prefix}$`), "")),
        body: page(all, req.query).map((r) => review(r, urls)),
      };
    }),
    route("POST", "/repos/{owner}/{repo}/pulls/{number}/reviews", (p, req) => {
      const pr = prOf(p);
      if (!pr) return NOT_FOUND;
      return createReview(state, pr, req, urls);
    }),
    route("GET", "/repos/{owner}/{repo}/actions/runs", (p, req) => listWorkflowRuns(state, p, req, urls)),
    route("GET", "/repos/{owner}/{repo}/actions/jobs/{id}", (p) => {
      const run = state.checkRuns.find((r) => r.id === Number(p.id) && r.app === "github-actions");
      return run ? { status: 200, body: job(run, urls) } : NOT_FOUND;
    }),
    route("GET", "/repos/{owner}/{repo}/actions/jobs/{id}/logs", (p) => {
      if (!state.logs.has(Number(p.id))) return NOT_FOUND;
      // Like GitHub: a redirect to a short-lived, signed URL on another path.
      return { status: 302, headers: { location: `${urls.blobs}/job-logs/${p.id}?sig=s1gn4ture` } };
    }),
    route("POST", "/repos/{owner}/{repo}/actions/runs/{id}/rerun-failed-jobs", (p) => {
      state.rerunRuns.push(Number(p.id));
      return { status: 201, body: {} };
    }),
  ];
}

// https://docs.github.com/en/rest/pulls/reviews#create-a-review-for-a-pull-request
const EVENTS: Record<string, ReviewState> = { APPROVE: "APPROVED", REQUEST_CHANGES: "CHANGES_REQUESTED", COMMENT: "COMMENTED" };

interface ReviewInput {
  commit_id?: string;
  body?: string;
  event?: string;
  comments?: Array<{ path?: string; line?: number; side?: "LEFT" | "RIGHT"; body?: string }>;
}

/** POST …/reviews: one review and its inline comments, all or nothing, with GitHub's 422s. */
function createReview(state: GithubState, pr: NonNullable<ReturnType<GithubState["pr"]>>, req: IncomingRequest, urls: Urls): Reply {
  const input = (req.body ?? {}) as ReviewInput;
  const invalid = (message: string): Reply => ({
    status: 422,
    body: {
      message: "Unprocessable Entity",
      errors: [message],
      documentation_url: "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request",
      status: "422",
    },
  });
  if (input.event !== undefined && !(input.event in EVENTS)) return invalid(`Unknown event ${input.event}`);
  if ((input.event === "COMMENT" || input.event === "REQUEST_CHANGES") && !input.body) return invalid("Review body is required");
  const comments = input.comments ?? [];
  for (const c of comments) {
    if (!c.path || !c.body || !c.line) return invalid("Each comment needs path, line and body");
    const lines = pr.diffLines?.[c.path];
    if (pr.diffLines && (c.side ?? "RIGHT") === "RIGHT" && !lines?.includes(c.line))
      return invalid("Pull request review thread line must be part of the diff");
  }
  const login = req.headers["x-fake-user"] ?? "otto-bot";
  const created = state.addReview(pr, {
    author: login,
    state: input.event ? (EVENTS[input.event] ?? "PENDING") : "PENDING",
    body: input.body ?? "",
    commitId: input.commit_id ?? pr.head.sha,
  });
  for (const c of comments)
    state.addReviewComment(pr, {
      path: c.path ?? "",
      line: c.line ?? 0,
      body: c.body ?? "",
      author: login,
      reviewId: created.id,
      ...(c.side ? { side: c.side } : {}),
    });
  return { status: 200, body: review(created, urls) };
}

interface GraphqlBody {
  query?: string;
  variables?: Record<string, unknown>;
}

/** The two GraphQL operations otto sends, answered from the state. */
export function graphql(state: GithubState, req: IncomingRequest): Reply {
  const { query = "", variables = {} } = (req.body ?? {}) as GraphqlBody;
  const mutation = /\b(unresolveReviewThread|resolveReviewThread)\b/.exec(query)?.[1];
  if (mutation) {
    const id = String(variables.threadId);
    const thread = state.threads.get(id);
    if (!thread)
      return {
        status: 200,
        body: { data: null, errors: [{ type: "NOT_FOUND", message: `Could not resolve to a node with the global id of '${id}'` }] },
      };
    thread.resolved = mutation === "resolveReviewThread";
    return { status: 200, body: { data: { [mutation]: { thread: { id, isResolved: thread.resolved } } } } };
  }
  if (query.includes("reviewThreads")) {
    const pr = state.pr(String(variables.owner), String(variables.name), Number(variables.number));
    if (!pr) return { status: 200, body: { data: { repository: { pullRequest: null } } } };
    const comments = state.reviewComments.filter((c) => c.owner === pr.owner && c.repo === pr.repo && c.number === pr.number);
    const nodes = [...new Set(comments.map((c) => c.thread))].map((id) => ({
      id,
      isResolved: state.threads.get(id)?.resolved ?? false,
      comments: { nodes: comments.filter((c) => c.thread === id).map((c) => ({ databaseId: c.id })) },
    }));
    return {
      status: 200,
      body: { data: { repository: { pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes } } } } },
    };
  }
  return { status: 200, body: { errors: [{ message: "fake GitHub: unsupported GraphQL operation" }] } };
}
