import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "../../../src/core/index.ts";
import { createGithubBackend } from "../../../src/pr/github/backend.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub, type FakeGithub } from "../../support/fake-github/index.ts";
import { matchPath, responseSchema, validate, type OpenApiDocument } from "../../support/openapi-validate.ts";
import { testConfig, testDeps } from "./support.ts";

/*
 * The fake GitHub must not drift from the real API: every JSON response it gives while otto's
 * GitHub backend runs its whole surface is validated against GitHub's OpenAPI description
 * (@octokit/openapi), strictly (no field the description lacks), and every route otto uses must
 * exist in it with the status the fake answers.
 */

describe("fake GitHub vs GitHub's OpenAPI description", () => {
  let doc: OpenApiDocument;
  let gh: FakeGithub;
  beforeAll(async () => {
    doc = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json"), "utf8")) as OpenApiDocument;
    gh = await startFakeGithub();
    const backend = createGithubBackend(testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })));
    const pr = gh.state.addPr({ number: 5, title: "Drift check" });
    gh.state.setChecks(pr, [{ name: "build", conclusion: "failure" }, { name: "lint", status: "in_progress" }, { name: "ext", app: "other-ci" }]);
    gh.state.setStatus(pr, "ci/legacy", "pending", "running");
    gh.state.addComment(pr, "hello");
    const inline = gh.state.addReviewComment(pr, { path: "src/x.ts", line: 4, body: "why?" });
    const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 5 });
    const status = await backend.getPipelineStatus(info);
    await backend.getBuildLogs(info, status.checks.find((c) => c.name === "build")?.logId ?? "");
    const comments = await backend.getComments(info);
    await backend.postComment(info, "otto was here");
    await backend.postInlineComment(info, { path: "src/x.ts", line: 5, side: "RIGHT", body: "note" });
    await backend.replyToComment(info, `review-${inline.id}`, "because");
    await backend.replyToComment(info, comments.find((c) => c.kind === "conversation")?.id ?? "", "thanks");
    await backend.runWorkflow(info, "rerun_failed");
    await backend.postReview(info, { body: "otto review", comments: [{ path: "src/x.ts", line: 6, side: "RIGHT", body: "inline" }] });
    gh.state.addReview(pr, { author: "lead", state: "CHANGES_REQUESTED", association: "MEMBER" });
    gh.state.addReview(pr, { author: "drafter", state: "PENDING" });
    await backend.getReviews(info);
    gh.state.merge(pr);
    await backend.getPr({ provider: "github", repo: "octo/app", number: 5 });
  }, 60_000);
  afterAll(async () => gh.close());

  it("answers only routes and statuses the description has", () => {
    const rest = gh.calls.filter((c) => c.path !== "/graphql");
    expect(rest.length).toBeGreaterThan(10);
    const unknown = rest.map((c) => ({ route: `${c.method} ${c.path}`, template: matchPath(doc, c.path), status: c.status })).filter((c) => {
      if (!c.template) return true;
      const op = doc.paths[c.template]?.[c.route.split(" ")[0]?.toLowerCase() ?? ""] as { responses?: Record<string, unknown> } | undefined;
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
        "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
        "GET /repos/{owner}/{repo}/commits/{ref}/status",
        "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
        "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
        "GET /repos/{owner}/{repo}/issues/comments/{comment_id}",
        "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments",
        "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments",
        "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies",
        "GET /repos/{owner}/{repo}/actions/jobs/{job_id}",
        "POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs",
        "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
        "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
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
      expect.arrayContaining(["$.state: expected string, found integer", "$.head_sha: not in the description", "$.html_url: required but missing"]),
    );
  });
});
