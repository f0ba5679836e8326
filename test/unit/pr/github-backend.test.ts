import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGithubBackend } from "../../../src/pr/github/backend.ts";
import { IMMEDIATE_WRITES, writeLimiterOption } from "../../../src/pr/backend.ts";
import type { CachedResponse, PrBackend, ResponseCache } from "../../../src/pr/index.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub, type FakeGithub } from "../../support/fake-github/index.ts";
import { postedBody, testConfig, testDeps } from "./support.ts";

function memoryCache(): ResponseCache & { entries: Map<string, CachedResponse> } {
  const entries = new Map<string, CachedResponse>();
  return { entries, get: (k) => entries.get(k), set: (k, v) => void entries.set(k, v) };
}

describe("GitHub backend against the fake GitHub", () => {
  let gh: FakeGithub;
  let backend: PrBackend;
  beforeEach(async () => {
    gh = await startFakeGithub();
    backend = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
  });
  afterEach(async () => gh.close());

  it("reads a PR and merges check runs (latest per name) with commit statuses", async () => {
    const pr = gh.state.addPr({ number: 7, title: "Add auth", branch: "feature/auth" });
    gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: "FAIL test/auth.test.ts\nexpected 1 to be 2" }, { name: "lint" }]);
    // A re-run of lint: the newer run wins.
    gh.state.checkRuns.push({
      ...gh.state.checkRuns.find((r) => r.name === "lint")!,
      id: gh.state.nextId(),
      conclusion: "failure",
      started_at: "2030-01-01T00:00:00Z",
    });
    gh.state.setStatus(pr, "ci/external", "success", "ok");
    const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 7 });
    expect(info).toMatchObject({
      number: 7,
      title: "Add auth",
      state: "open",
      sourceBranch: "feature/auth",
      targetBranch: "main",
      headSha: pr.head.sha,
      url: "https://github.com/octo/app/pull/7",
    });
    const status = await backend.getPipelineStatus(info);
    expect(status.state).toBe("failure");
    expect(status.checks.map((c) => [c.name, c.state])).toEqual([
      ["ci/external", "success"],
      ["lint", "failure"],
      ["unit", "failure"],
    ]);
    const unit = status.checks.find((c) => c.name === "unit");
    expect(unit?.detail).toBe("unit failed");
    // The job log: a 302 to the blob store, followed without the token.
    expect(await backend.getBuildLogs(info, unit?.logId ?? "")).toContain("expected 1 to be 2");
    const blob = gh.blobCalls.find((c) => c.path.startsWith("/job-logs/"));
    expect(blob?.status).toBe(200);
    expect(blob?.headers.authorization).toBeUndefined();
  });

  it("answers an unchanged PR from the ETag cache: every request a free 304", async () => {
    const pr = gh.state.addPr({ number: 8 });
    gh.state.setChecks(pr, [{ name: "build" }]);
    gh.state.addComment(pr, "looks good");
    const cache = memoryCache();
    const poll = async () => {
      const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 8 }, { cache });
      return { info, status: await backend.getPipelineStatus(info, { cache }), comments: await backend.getComments(info, { cache }) };
    };
    const first = await poll();
    const mark = gh.calls.length;
    const second = await poll();
    expect(second).toEqual(first);
    expect(gh.conditionalStats(mark)).toEqual({ total: 5, notModified: 5 });
    // A change shows up on the next poll.
    gh.state.setChecks(pr, [{ name: "build", conclusion: "failure" }]);
    expect((await poll()).status.state).toBe("failure");
  });

  it("lists comments with review threads, replies and resolves", async () => {
    const pr = gh.state.addPr({ number: 9 });
    gh.state.addComment(pr, "general remark");
    const inline = gh.state.addReviewComment(pr, { path: "src/a.ts", line: 3, body: "missing check" });
    gh.state.addReviewComment(pr, { path: "src/a.ts", line: 3, body: "agreed", inReplyTo: inline.id, author: "other" });
    const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 9 });
    const comments = await backend.getComments(info);
    expect(comments.map((c) => [c.id, c.kind, c.resolved, c.inReplyTo])).toEqual([
      [expect.stringMatching(/^issue-/), "conversation", false, undefined],
      [`review-${inline.id}`, "inline", false, undefined],
      [expect.stringMatching(/^review-/), "inline", false, `review-${inline.id}`],
    ]);
    await backend.replyToComment(info, `review-${inline.id}`, "Fixed in abc123");
    await backend.replyToComment(info, comments[0]?.id ?? "", "Thanks");
    await backend.resolveComment(info, `review-${inline.id}`, "resolved");
    expect(gh.state.threads.get(inline.thread)?.resolved).toBe(true);
    expect((await backend.getComments(info)).find((c) => c.id === `review-${inline.id}`)?.resolved).toBe(true);
    await backend.resolveComment(info, `review-${inline.id}`, "active");
    expect(gh.state.threads.get(inline.thread)?.resolved).toBe(false);
    await backend.resolveComment(info, `review-${inline.id}`, "closed");
    expect(gh.state.threads.get(inline.thread)?.resolved).toBe(true);
    expect(gh.state.reviewComments.at(-1)).toMatchObject({ body: postedBody("Fixed in abc123"), in_reply_to_id: inline.id });
    expect(gh.state.comments.at(-1)?.body).toEqual(postedBody("> @reviewer wrote:\n> general remark\n\nThanks"));
    await backend.postInlineComment(info, { path: "src/b.ts", line: 2, side: "RIGHT", body: "note" });
    expect(gh.state.reviewComments.at(-1)).toMatchObject({ path: "src/b.ts", line: 2, commit_id: pr.head.sha });
  });

  it("maps merged and closed PRs", async () => {
    const merged = gh.state.addPr({ number: 10 });
    gh.state.merge(merged);
    const closed = gh.state.addPr({ number: 11 });
    gh.state.close(closed);
    expect((await backend.getPr({ provider: "github", repo: "octo/app", number: 10 })).state).toBe("merged");
    expect((await backend.getPr({ provider: "github", repo: "octo/app", number: 11 })).state).toBe("closed");
  });

  it("turns 401 and 404 into errors that say what to do", async () => {
    await expect(backend.getPr({ provider: "github", repo: "octo/app", number: 404 })).rejects.toMatchObject({ code: "pr_not_found" });
    const anonymous = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: "ghp_wrongwrongwrongwrongwrongwrong00" } } } })),
    );
    const error = await anonymous.getPr({ provider: "github", repo: "octo/app", number: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "pr_auth", fix: expect.stringContaining("GITHUB_TOKEN") as unknown });
    expect(String((error as Error).message)).not.toContain("ghp_wrong");
  });

  it("retries server errors, timeouts and secondary rate limits", async () => {
    const pr = gh.state.addPr({ number: 12 });
    gh.state.setChecks(pr, [{ name: "build" }]);
    const quick = createGithubBackend(
      testDeps(testConfig({ pr: { request_timeout: "300ms", providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    gh.faults({ rate: 0.5, kinds: ["500", "timeout", "rate_limit"], seed: 3 });
    for (let i = 0; i < 4; i++) {
      const info = await quick.getPr({ provider: "github", repo: "octo/app", number: 12 });
      expect((await quick.getPipelineStatus(info)).state).toBe("success");
    }
    const faults = gh.calls.filter((c) => c.fault).map((c) => c.fault);
    expect(new Set(faults)).toEqual(new Set(["500", "timeout", "rate_limit"]));
  });

  it("uses gh auth token when no token is configured, and talks to GraphQL under /api for Enterprise", async () => {
    const ghe = await startFakeGithub({ prefix: "/api/v3" });
    try {
      const pr = ghe.state.addPr({ number: 3 });
      ghe.state.addReviewComment(pr, { path: "a.ts", line: 1, body: "x" });
      const deps = testDeps(testConfig({ pr: { providers: { github: { api_url: ghe.apiUrl } } } }), {
        cli: { gh: { exitCode: 0, stdout: `${FAKE_GITHUB_TOKEN}\n` } },
      });
      const enterprise = createGithubBackend(deps);
      const info = await enterprise.getPr({ provider: "github", repo: "octo/app", number: 3 });
      await enterprise.getComments(info);
      expect(deps.execCalls).toEqual([{ file: "gh", args: ["auth", "token", "--hostname", "127.0.0.1"] }]);
      expect(ghe.calls.some((c) => c.path === "/api/graphql" && c.status === 200)).toBe(true);
    } finally {
      await ghe.close();
    }
  });
});

describe("GitHub backend with an installation token (a GitHub App's, GitHub Actions' own)", () => {
  const PERMISSIONS = { contents: "write", "pull-requests": "write", checks: "read", actions: "write" } as const;
  let gh: FakeGithub;
  afterEach(async () => gh.close());
  const backendFor = (github: Record<string, unknown>) =>
    createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN, ...github } } } })),
    );

  it("GET /user is refused: the login is pr.providers.github.bot_login, and without it an error that says so, never a guess", async () => {
    gh = await startFakeGithub({ installation: { bot: "github-actions[bot]", permissions: PERMISSIONS } });
    const pr = gh.state.addPr({ number: 1, branch: "fix" });
    const info = await backendFor({}).getPr({ provider: "github", repo: "octo/app", number: 1 });
    await expect(backendFor({}).currentUser(info)).rejects.toMatchObject({ code: "github_identity_unknown" });
    expect(await backendFor({ bot_login: "github-actions[bot]" }).currentUser(info)).toBe("github-actions[bot]");
    expect(gh.calls.filter((c) => c.path === "/user").map((c) => c.status)).toEqual([403, 403]);
    // What it writes is the bot's.
    await backendFor({}).postComment(info, "hello");
    expect(gh.state.comments.filter((c) => c.number === pr.number).map((c) => c.user.login)).toEqual(["github-actions[bot]"]);
  });

  it("with actions: read (a CI job without pr.flakes.rerun) a re-run is refused and said, not thrown; with actions: write it runs", async () => {
    for (const actions of ["read", "write"] as const) {
      gh = await startFakeGithub({
        installation: { bot: "github-actions[bot]", permissions: { ...PERMISSIONS, statuses: "read", actions } },
      });
      const pr = gh.state.addPr({ number: 1, branch: "fix" });
      gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: "FAIL" }]);
      const backend = backendFor({});
      const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 1 });
      const result = await backend.runWorkflow(info, "rerun_failed");
      if (actions === "read") {
        expect(result).toEqual({
          done: false,
          message: expect.stringContaining("GitHub refused to re-run the failed jobs (403)") as string,
        });
        expect(gh.state.rerunRuns).toEqual([]);
      } else {
        expect(result.done).toBe(true);
        expect(gh.state.rerunRuns).toHaveLength(1);
      }
      await gh.close();
    }
    gh = await startFakeGithub();
  });

  it("the fake enforces the token's permissions: no statuses: read, no checks (as on GitHub, a 403)", async () => {
    gh = await startFakeGithub({ installation: { bot: "github-actions[bot]", permissions: PERMISSIONS } });
    gh.state.addPr({ number: 1, branch: "fix" });
    const backend = backendFor({});
    const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 1 });
    await expect(backend.getPipelineStatus(info)).rejects.toMatchObject({ code: "pr_forbidden" });
    expect(gh.calls.filter((c) => c.status === 403).map((c) => c.path)).toEqual([`/repos/octo/app/commits/${info.headSha}/status`]);
  });
});

describe("pauses between writes (pr.providers.github.pause_writes)", () => {
  it("on: the throttling plugin's own pauses (no limiter of otto's); off: writes at once", async () => {
    expect(writeLimiterOption(true)).toEqual({});
    expect(writeLimiterOption(false)).toEqual({ writeLimiter: IMMEDIATE_WRITES });
    // At once: the task runs with its arguments, nothing in between.
    await expect(IMMEDIATE_WRITES.key("x").schedule({}, (a: number, b: number) => a + b, 2, 3)).resolves.toBe(5);
  });

  it("the setting is on unless the config turns it off", () => {
    expect(testConfig().pr.providers.github.pause_writes).toBe(true);
    expect(testConfig({ pr: { providers: { github: { pause_writes: false } } } }).pr.providers.github.pause_writes).toBe(false);
  });
});
