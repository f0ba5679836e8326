import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/index.ts";
import { createGithubBackend } from "../../../src/pr/github/backend.ts";
import { FAKE_GITHUB_TOKEN, isOttosCall, startFakeGithub, type FakeGithub } from "../../support/fake-github/index.ts";
import { graphqlProblems, restProblems } from "../../support/fake-github/contract.ts";
import { runOnBranch } from "../../support/fake-github/branch-runs.ts";
import { matchPath, responseSchema, validate, type OpenApiDocument } from "../../support/openapi-validate.ts";
import type { RecordedCall } from "../../support/fake-http.ts";
import { testConfig, testDeps } from "./support.ts";

/*
 * The fake GitHub must not drift from the real API: every JSON response it gives while otto's
 * GitHub backend runs its whole surface is validated against GitHub's OpenAPI description
 * (@octokit/openapi), strictly (no field the description lacks), and every route otto uses must
 * exist in it with the status the fake answers. The fake checks otto's requests and its own
 * answers itself on every call (contract.ts), in every test; here the whole surface is driven, every
 * route in src/pr/github must be among the calls checked, and the check must catch drift.
 */

/** The REST routes and GraphQL operations otto's GitHub backend sends, read from its source. */
function ottosRoutes(): { rest: string[]; graphql: string[] } {
  const dir = path.join(PACKAGE_ROOT, "src/pr/github");
  const source = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => fs.readFileSync(path.join(dir, f), "utf8"))
    .join("\n");
  return {
    rest: [...new Set([...source.matchAll(/"((?:GET|POST|PUT|PATCH|DELETE) \/[^"]*)"/g)].map((m) => m[1] ?? ""))],
    graphql: [...new Set([...source.matchAll(/\b(?:query|mutation) (otto_\w+)/g)].map((m) => m[1] ?? ""))],
  };
}

describe("fake GitHub vs GitHub's OpenAPI description", () => {
  let doc: OpenApiDocument;
  let gh: FakeGithub;
  beforeAll(async () => {
    doc = JSON.parse(
      fs.readFileSync(path.join(PACKAGE_ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json"), "utf8"),
    ) as OpenApiDocument;
    gh = await startFakeGithub();
    const backend = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    const pr = gh.state.addPr({ number: 5, title: "Drift check" });
    gh.state.setChecks(pr, [
      { name: "build", conclusion: "failure" },
      { name: "lint", status: "in_progress" },
      { name: "ext", app: "other-ci" },
    ]);
    gh.state.setStatus(pr, "ci/legacy", "pending", "running");
    gh.state.addComment(pr, "hello");
    const inline = gh.state.addReviewComment(pr, { path: "src/x.ts", line: 4, body: "why?" });
    // Opening a PR with reviewers, and finding it by its branch.
    await backend.createPr({
      repo: "octo/app",
      source: "feature/new",
      target: "main",
      title: "New",
      body: "Opened by otto",
      draft: true,
      reviewers: ["lead"],
    });
    await backend.findOpenPr("octo/app", "feature/new");
    const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 5 });
    await backend.currentUser(info);
    await backend.skimRepo?.("octo/app", [5]);
    const status = await backend.getPipelineStatus(info);
    await backend.getBuildLogs(info, status.checks.find((c) => c.name === "build")?.logId ?? "");
    // The default branch's own CI (the fix flow's inherited-failure check).
    runOnBranch(gh.state, { branch: "main", checks: [{ name: "build", conclusion: "failure", log: "FAIL main" }] });
    await backend.baseCheck?.(info, "build");
    const comments = await backend.getComments(info);
    gh.state.stranger("drive-by");
    gh.state.addComment(pr, "run this", "drive-by");
    await backend.authorAccess(info, [{ author: "drive-by" }, { author: "reviewer" }]);
    await backend.postComment(info, "otto was here");
    // otto's CI state comment is updated in place (src/pr/ci/state-comment.ts).
    await backend.editComment?.(info, `issue-${gh.state.comments.at(-1)?.id ?? 0}`, "otto was here, edited");
    await backend.postInlineComment(info, { path: "src/x.ts", line: 5, side: "RIGHT", body: "note" });
    await backend.replyToComment(info, `review-${inline.id}`, "because");
    await backend.replyToComment(info, comments.find((c) => c.kind === "conversation")?.id ?? "", "thanks");
    await backend.resolveComment(info, `review-${inline.id}`, "resolved");
    await backend.resolveComment(info, `review-${inline.id}`, "active");
    await backend.runWorkflow(info, "rerun_failed");
    // A flaky test's issue (pr.flakes.open_issue).
    await backend.openIssue?.("octo/app", { title: "Flaky: FAIL x", body: "seen twice" });
    await backend.postReview(info, { body: "otto review", comments: [{ path: "src/x.ts", line: 6, side: "RIGHT", body: "inline" }] });
    gh.state.addReview(pr, { author: "lead", state: "CHANGES_REQUESTED", association: "MEMBER" });
    gh.state.addReview(pr, { author: "drafter", state: "PENDING" });
    await backend.getReviews(info);
    gh.state.merge(pr);
    await backend.getPr({ provider: "github", repo: "octo/app", number: 5 });
  }, 60_000);
  afterAll(async () => gh.close());

  it("checked every call otto made, and every route and GraphQL operation in src/pr/github is among them, with no mismatch", () => {
    expect(gh.contractProblems).toEqual([]);
    const ottos = gh.calls.filter(isOttosCall);
    expect(ottos.length).toBe(gh.calls.length);
    const graphqlOps = ottos
      .filter((c) => c.path === "/graphql")
      .map((c) => /^\s*(?:query|mutation)\s+(\w+)/.exec((c.body as { query: string }).query)?.[1]);
    const restRoutes = ottos.filter((c) => c.path !== "/graphql").map((c) => `${c.method} ${matchPath(doc, c.path)}`);
    const routes = ottosRoutes();
    expect(routes.rest.length).toBeGreaterThan(15);
    expect(routes.rest.filter((r) => !restRoutes.includes(r))).toEqual([]);
    expect(routes.graphql.sort()).toEqual(["otto_resolve_thread", "otto_review_threads", "otto_unresolve_thread"]);
    expect(routes.graphql.filter((op) => !graphqlOps.includes(op))).toEqual([]);
  });

  it("answers only routes and statuses the description has", () => {
    const rest = gh.calls.filter((c) => c.path !== "/graphql");
    expect(rest.length).toBeGreaterThan(10);
    const unknown = rest
      .map((c) => ({ route: `${c.method} ${c.path}`, template: matchPath(doc, c.path), status: c.status }))
      .filter((c) => {
        if (!c.template) return true;
        const op = doc.paths[c.template]?.[c.route.split(" ")[0]?.toLowerCase() ?? ""] as
          { responses?: Record<string, unknown> } | undefined;
        return !op?.responses?.[String(c.status)];
      });
    expect(unknown).toEqual([]);
  });

  it("gives JSON bodies that validate against the response schemas", () => {
    const checked: string[] = [];
    const problems: string[] = [];
    for (const call of gh.calls) {
      if (call.path === "/graphql" || call.response === undefined || typeof call.response === "string") continue;
      const template = matchPath(doc, call.path);
      const schema = template && responseSchema(doc, template, call.method, call.status);
      if (!template || !schema) {
        problems.push(`${call.method} ${call.path} ${call.status}: no JSON schema in the description`);
        continue;
      }
      checked.push(`${call.method} ${template}`);
      problems.push(...validate(doc, schema, call.response).map((e) => `${call.method} ${template}: ${e}`));
    }
    expect(problems).toEqual([]);
    expect(new Set(checked)).toEqual(
      new Set([
        "GET /repos/{owner}/{repo}/pulls/{pull_number}",
        "GET /repos/{owner}/{repo}/pulls",
        "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
        "GET /repos/{owner}/{repo}/commits/{ref}/status",
        "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
        "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
        "GET /repos/{owner}/{repo}/issues/comments/{comment_id}",
        "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
        "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments",
        "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments",
        "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies",
        "GET /repos/{owner}/{repo}/actions/jobs/{job_id}",
        "GET /repos/{owner}/{repo}/actions/runs",
        "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs",
        "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
        "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
        "GET /repos/{owner}/{repo}/collaborators/{username}/permission",
        "POST /repos/{owner}/{repo}/pulls",
        "POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers",
        "POST /repos/{owner}/{repo}/issues",
        "GET /user",
      ]),
    );
  });

  it("catches a drifted field", () => {
    const call = gh.calls.find((c) => c.path === "/repos/octo/app/pulls/5" && c.status === 200);
    const template = matchPath(doc, call?.path ?? "") ?? "";
    const schema = responseSchema(doc, template, "GET", 200);
    const drifted: Record<string, unknown> = { ...(call?.response as Record<string, unknown>), state: 3, head_sha: "x" };
    delete drifted.html_url;
    expect(validate(doc, schema ?? {}, drifted)).toEqual(
      expect.arrayContaining([
        "$.state: expected string, found integer",
        "$.head_sha: not in the description",
        "$.html_url: required but missing",
      ]),
    );
  });
});

describe("the fake's own contract check catches drift", () => {
  const call = (over: Partial<RecordedCall>): RecordedCall => ({
    seq: 1,
    at: 0,
    method: "GET",
    path: "/",
    query: {},
    headers: {},
    body: undefined,
    status: 200,
    responseHeaders: {},
    ...over,
  });

  it("REST: an unknown route, a wrong path or query parameter, a body field GitHub does not take, a misshapen answer", () => {
    expect(restProblems(call({ path: "/repos/o/r/pulls/5/merge-it" }), "/repos/o/r/pulls/5/merge-it")).toEqual([
      "GET /repos/o/r/pulls/5/merge-it: no such route in GitHub's REST description",
    ]);
    expect(
      restProblems(
        call({ path: "/repos/o/r/pulls/five", status: 404, response: { message: "Not Found", documentation_url: "x" } }),
        "/repos/o/r/pulls/five",
      ),
    ).toEqual(['GET /repos/{owner}/{repo}/pulls/{pull_number} path pull_number: "five" is not an integer']);
    expect(
      restProblems(
        call({ path: "/repos/o/r/pulls", query: { state: "opened", per_page: "x", colour: "red" }, response: [] }),
        "/repos/o/r/pulls",
      ),
    ).toEqual([
      'GET /repos/{owner}/{repo}/pulls query state: "opened" not in enum ["open","closed","all"]',
      'GET /repos/{owner}/{repo}/pulls query per_page: "x" is not an integer',
      "GET /repos/{owner}/{repo}/pulls: query parameter colour is not in the description",
    ]);
    const post = restProblems(
      call({
        method: "POST",
        path: "/repos/o/r/pulls",
        body: { head: "b", base: "main", title: "t", draft: "yes", labels: ["x"] },
        status: 201,
        response: { number: 1 },
      }),
      "/repos/o/r/pulls",
    );
    expect(post).toEqual(
      expect.arrayContaining([
        "POST /repos/{owner}/{repo}/pulls: $body.draft: expected boolean, found string",
        "POST /repos/{owner}/{repo}/pulls: $body.labels: not in the description",
        "POST /repos/{owner}/{repo}/pulls 201: $.url: required but missing",
      ]),
    );
    expect(
      restProblems(
        call({ method: "POST", path: "/repos/o/r/pulls", body: { head: "b", base: "main", title: "t" }, status: 200, response: {} }),
        "/repos/o/r/pulls",
      ),
    ).toEqual(["POST /repos/{owner}/{repo}/pulls: answered 200, which the description does not list"]);
  });

  it("GraphQL: an operation otto does not send, wrong variables, a misshapen answer; errors in GitHub's format pass", () => {
    const query = "query otto_review_threads($owner: String!, $name: String!, $number: Int!, $cursor: String) { x }";
    const gql = (variables: unknown, response: unknown): RecordedCall =>
      call({ method: "POST", path: "/graphql", body: { query, variables }, response });
    expect(graphqlProblems(call({ method: "POST", path: "/graphql", body: { query: "mutation addComment { x }" } }))).toEqual([
      expect.stringContaining("operation addComment is not one otto sends"),
    ]);
    expect(graphqlProblems(gql({ owner: "o", name: "r", number: "5" }, { data: { repository: null } }))).toEqual([
      expect.stringMatching(/^graphql otto_review_threads variables number: /),
    ]);
    const page = {
      pageInfo: { hasNextPage: false, endCursor: null },
      nodes: [{ id: "T", isResolved: "no", comments: { nodes: [{ databaseId: 1 }] } }],
    };
    expect(
      graphqlProblems(gql({ owner: "o", name: "r", number: 5 }, { data: { repository: { pullRequest: { reviewThreads: page } } } })),
    ).not.toEqual([]);
    expect(
      graphqlProblems(
        gql({ owner: "o", name: "r", number: 5 }, { data: null, errors: [{ type: "NOT_FOUND", message: "Could not resolve" }] }),
      ),
    ).toEqual([]);
  });
});

/*
 * The answers otto's error handling depends on: 304 (ETag hit), 401, 404 and the secondary rate
 * limit. Where the route's description lists the status, the body must match that response (the
 * response objects are $refs into components.responses); where it does not (GitHub answers 401 and
 * rate limits on every route without saying so per route), the body must match the shared
 * `basic-error` schema. Either way it carries `message` and `documentation_url`, as GitHub's do.
 */
describe("fake GitHub's error and conditional answers vs the description", () => {
  type Described = { $ref?: string; content?: Record<string, { schema?: object }> };
  let doc: OpenApiDocument & { components: { responses: Record<string, Described> } };
  let gh: FakeGithub;
  beforeAll(async () => {
    doc = JSON.parse(
      fs.readFileSync(path.join(PACKAGE_ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json"), "utf8"),
    ) as typeof doc;
    gh = await startFakeGithub();
    gh.state.addPr({ number: 5 });
  });
  afterAll(async () => gh.close());

  const send = async (method: string, route: string, headers: Record<string, string> = {}, body?: unknown): Promise<RecordedCall> => {
    const response = await fetch(`${gh.apiUrl}${route}`, {
      method,
      headers: { authorization: `token ${FAKE_GITHUB_TOKEN}`, accept: "application/vnd.github+json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    await response.text();
    const call = gh.calls.at(-1);
    if (!call) throw new Error("nothing recorded");
    return call;
  };

  /** The route's documented response for a status (its $ref followed), or undefined when not listed. */
  const described = (call: RecordedCall): Described | undefined => {
    const template = matchPath(doc, call.path);
    let response: Described | undefined = template
      ? doc.paths[template]?.[call.method.toLowerCase()]?.responses?.[String(call.status)]
      : undefined;
    while (response?.$ref) response = doc.components.responses[response.$ref.replace("#/components/responses/", "")];
    return response;
  };

  const basicError = { $ref: "#/components/schemas/basic-error" };
  const checkError = (call: RecordedCall, status: number, listed: boolean): void => {
    expect(call.status).toBe(status);
    const response = described(call);
    expect(response !== undefined, `${call.method} ${call.path} ${status} listed in the description`).toBe(listed);
    const schema = response?.content?.["application/json"]?.schema ?? basicError;
    expect(validate(doc, schema, call.response)).toEqual([]);
    expect(validate(doc, basicError, call.response)).toEqual([]);
    expect(Object.keys(call.response as object)).toEqual(expect.arrayContaining(["message", "documentation_url"]));
  };

  it("304: an ETag hit has no body, the ETag and the rate-limit headers, on a route that lists 304", async () => {
    const first = await send("GET", "/repos/octo/app/pulls/5");
    const etag = first.responseHeaders.etag ?? "";
    expect(etag).toMatch(/^W\/"[0-9a-f]+"$/);
    const hit = await send("GET", "/repos/octo/app/pulls/5", { "if-none-match": etag });
    expect(hit.status).toBe(304);
    expect(described(hit)).toEqual({ description: "Not modified" });
    expect(hit.response).toBeUndefined();
    expect(hit.responseHeaders).toMatchObject({ etag, "x-ratelimit-limit": "5000", "x-ratelimit-resource": "core" });
    // Free against the rate limit: remaining is what it was after the 200.
    expect(hit.responseHeaders["x-ratelimit-remaining"]).toBe(first.responseHeaders["x-ratelimit-remaining"]);
  });

  it("404: a missing PR (listed for the route) and an unknown route", async () => {
    checkError(await send("GET", "/repos/octo/app/pulls/999"), 404, true);
    checkError(await send("GET", "/repos/octo/app/issues/999/comments"), 404, true);
    checkError(await send("GET", "/repos/octo/app/no-such-thing"), 404, false);
  });

  it("401: bad credentials, as GitHub answers on every route", async () => {
    checkError(await send("GET", "/repos/octo/app/pulls/5", { authorization: "token ghp_wrong" }), 401, false);
    checkError(await send("GET", "/user", { authorization: "token ghp_wrong" }), 401, true);
  });

  it("403 secondary rate limit: basic-error body with Retry-After; listed as forbidden where the route has 403", async () => {
    gh.faults({ rate: 1, kinds: ["rate_limit"], maxConsecutive: 1 });
    try {
      const call = await send("POST", "/repos/octo/app/issues/5/comments", { "content-type": "application/json" }, { body: "hi" });
      checkError(call, 403, true);
      expect(call.responseHeaders["retry-after"]).toMatch(/^\d+$/);
      expect(call.response).toMatchObject({ message: expect.stringContaining("secondary rate limit") as unknown });
      checkError(await send("GET", "/repos/octo/app/pulls/5", { "if-none-match": "x" }), 403, false);
    } finally {
      gh.faults(undefined);
    }
  });
});
