import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { azureCollection, commentCommand, githubEvent, readAzureEvent, readCiEvent } from "../../../../src/pr/ci/index.ts";

/* The event readers against GitHub's own example payloads (@octokit/webhooks-examples) and Azure Pipelines' variables. */

type Payload = Record<string, unknown> & { repository: { full_name: string } };
const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as Array<{ name: string; examples: Payload[] }>;
const example = (name: string, pick: (p: Payload) => boolean = () => true): Payload => {
  const found = examples.find((e) => e.name === name)?.examples.find(pick);
  if (!found) throw new Error(`no ${name} example`);
  return JSON.parse(JSON.stringify(found)) as Payload;
};
const SHA = "c".repeat(40);

describe("GitHub Actions events", () => {
  it("workflow_run: completed with failure on a PR → failure; success, other actions and forks → nothing", () => {
    const p = example(
      "workflow_run",
      (e) => e.action === "completed" && (e.workflow_run as { pull_requests: unknown[] }).pull_requests.length > 0,
    );
    const repo = p.repository.full_name;
    const run = p.workflow_run as Record<string, unknown> & {
      pull_requests: Array<{ number: number }>;
      head_repository: { full_name: string };
    };
    expect(githubEvent("workflow_run", p, repo)).toMatchObject({
      kind: "none",
      reason: expect.stringContaining("conclusion is success, not failure") as unknown,
    });
    run.conclusion = "failure";
    run.head_sha = SHA;
    expect(githubEvent("workflow_run", p, repo)).toMatchObject({
      kind: "failure",
      provider: "github",
      repo,
      number: run.pull_requests[0]!.number,
      headSha: SHA,
      source: "workflow_run.completed",
    });
    run.pull_requests = [];
    expect(githubEvent("workflow_run", p, repo)).toMatchObject({ kind: "failure", branch: run.head_branch });
    run.head_repository.full_name = "someone/fork";
    expect(githubEvent("workflow_run", p, repo)).toMatchObject({ kind: "none", reason: expect.stringContaining("fork") as unknown });
    const requested = example("workflow_run", (e) => e.action === "requested");
    expect(githubEvent("workflow_run", requested, requested.repository.full_name).kind).toBe("none");
  });

  it("check_suite completed with failure on a PR → failure", () => {
    const p = example(
      "check_suite",
      (e) => e.action === "completed" && (e.check_suite as { pull_requests: unknown[] }).pull_requests.length > 0,
    );
    (p.check_suite as Record<string, unknown>).conclusion = "failure";
    expect(githubEvent("check_suite", p, p.repository.full_name)).toMatchObject({ kind: "failure", number: expect.any(Number) as unknown });
  });

  it("issue_comment on a PR → comment with its id and author; on an issue, edited or deleted → nothing", () => {
    const p = example("issue_comment", (e) => e.action === "created");
    const repo = p.repository.full_name;
    expect(githubEvent("issue_comment", p, repo)).toMatchObject({
      kind: "none",
      reason: expect.stringContaining("not on a pull request") as unknown,
    });
    (p.issue as Record<string, unknown>).pull_request = { url: "x" };
    const c = p.comment as { id: number; user: { login: string }; author_association: string };
    expect(githubEvent("issue_comment", p, repo)).toMatchObject({
      kind: "comment",
      comment: { id: `issue-${c.id}`, author: c.user.login, association: c.author_association },
    });
    const deleted = example("issue_comment", (e) => e.action === "deleted");
    expect(githubEvent("issue_comment", deleted, repo).kind).toBe("none");
  });

  it("review comments and submitted reviews → comment; a fork PR's → nothing", () => {
    const rc = example("pull_request_review_comment", (e) => e.action === "created");
    const repo = rc.repository.full_name;
    const event = githubEvent("pull_request_review_comment", rc, repo);
    expect(event).toMatchObject({ kind: "comment", comment: { id: expect.stringMatching(/^review-\d+$/) as unknown } });
    const review = example("pull_request_review", (e) => e.action === "submitted");
    expect(githubEvent("pull_request_review", review, review.repository.full_name)).toMatchObject({ kind: "comment" });
    (rc.pull_request as { head: { repo: { full_name: string } } }).head.repo.full_name = "stranger/fork";
    expect(githubEvent("pull_request_review_comment", rc, repo)).toMatchObject({
      kind: "none",
      reason: expect.stringContaining("from a fork") as unknown,
    });
    expect(githubEvent("push", rc, repo)).toMatchObject({
      kind: "none",
      reason: expect.stringContaining("not an event otto acts on") as unknown,
    });
  });

  it("reads the payload file; a missing variable or a broken file is an error, not a quiet exit", async () => {
    const p = example("issue_comment", (e) => e.action === "created");
    const env = { GITHUB_EVENT_NAME: "issue_comment", GITHUB_EVENT_PATH: "/event.json", GITHUB_REPOSITORY: "octo/app" };
    expect((await readCiEvent(env, async () => JSON.stringify(p))).platform).toBe("github");
    await expect(readCiEvent(env, async () => "{not json")).rejects.toThrow(/Could not read the event payload/);
    await expect(readCiEvent({ GITHUB_ACTIONS: "true" }, async () => "")).rejects.toThrow(/GITHUB_EVENT_NAME and GITHUB_EVENT_PATH/);
    await expect(readCiEvent({}, async () => "")).rejects.toThrow(/No CI event/);
  });
});

describe("/otto commands in comments", () => {
  it("the first line alone, exactly, asks for work", () => {
    expect(commentCommand("/otto fix")).toBe("fix");
    expect(commentCommand("  /OTTO   answer  \nplease")).toBe("answer");
    expect(commentCommand("please /otto fix")).toBeUndefined();
    expect(commentCommand("/otto fix everything")).toBeUndefined();
    expect(commentCommand("hello\n/otto fix")).toBeUndefined();
  });
});

describe("Azure Pipelines", () => {
  const base = {
    OTTO_CI_EVENT: "build_failed",
    SYSTEM_COLLECTIONURI: "https://dev.azure.com/contoso/",
    SYSTEM_TEAMPROJECT: "payments",
    BUILD_REASON: "PullRequest",
    SYSTEM_PULLREQUEST_PULLREQUESTID: "30",
    SYSTEM_PULLREQUEST_ISFORK: "False",
    SYSTEM_PULLREQUEST_SOURCECOMMITID: SHA,
    BUILD_REPOSITORY_NAME: "app",
    BUILD_BUILDID: "77",
  };

  it("a failed PR build → failure on org/project/repo; a fork, a CI build or no PR → nothing", () => {
    expect(readAzureEvent(base)).toEqual({
      kind: "failure",
      provider: "ado",
      repo: "contoso/payments/app",
      number: 30,
      headSha: SHA,
      source: "build_failed (build 77)",
    });
    expect(readAzureEvent({ ...base, SYSTEM_PULLREQUEST_ISFORK: "True" })).toMatchObject({
      kind: "none",
      reason: expect.stringContaining("fork") as unknown,
    });
    expect(readAzureEvent({ ...base, BUILD_REASON: "IndividualCI" })).toMatchObject({
      kind: "none",
      reason: expect.stringContaining("IndividualCI") as unknown,
    });
    expect(readAzureEvent({ ...base, SYSTEM_PULLREQUEST_PULLREQUESTID: "" }).kind).toBe("none");
    expect(() => readAzureEvent({ ...base, OTTO_CI_EVENT: "push" })).toThrow(/OTTO_CI_EVENT/);
  });

  it("a service hook's 'Pull request commented on' payload → a comment known by its <thread>/<comment> id only (author and text are read back)", () => {
    const payload = {
      eventType: "ms.vss-code.git-pullrequest-comment-event",
      resource: {
        comment: {
          id: 2,
          content: "/otto fix",
          publishedDate: "2026-02-06T10:00:00Z",
          commentType: "text",
          author: { displayName: "Alice", id: "id-alice", uniqueName: "alice@contoso.com" },
          _links: { threads: { href: "https://dev.azure.com/contoso/_apis/git/repositories/r/pullRequests/30/threads/5" } },
        },
        pullRequest: {
          pullRequestId: 30,
          status: "active",
          repository: { id: "REPO-ID", name: "app", project: { id: "proj-id", name: "payments" } },
        },
      },
    };
    const env = { ...base, OTTO_CI_EVENT: "comment", BUILD_REPOSITORY_ID: "repo-id", SYSTEM_TEAMPROJECTID: "PROJ-ID" };
    const read = (p: unknown, extra: Record<string, string> = {}) =>
      readAzureEvent({ ...env, ...extra, OTTO_EVENT_PAYLOAD: JSON.stringify(p) });
    const event = read(payload);
    expect(event).toEqual({
      kind: "comment_ref",
      provider: "ado",
      repo: "contoso/payments/app",
      number: 30,
      commentId: "5/2",
      source: "comment",
    });
    // Nothing the payload says about who wrote what survives into the event.
    expect(JSON.stringify(event)).not.toMatch(/alice|otto fix|2026/i);
    expect(() => readAzureEvent({ ...env, OTTO_EVENT_PAYLOAD: "nope" })).toThrow(/OTTO_EVENT_PAYLOAD/);
    expect(read(null).kind).toBe("none");
  });

  it("a payload about another repository or project, or one the job cannot place, does nothing", () => {
    const payload = (repository: unknown) => ({
      eventType: "ms.vss-code.git-pullrequest-comment-event",
      resource: {
        comment: {
          id: 2,
          commentType: "text",
          _links: { threads: { href: "https://x/_apis/git/repositories/r/pullRequests/30/threads/5" } },
        },
        pullRequest: { pullRequestId: 30, repository },
      },
    });
    const env = { ...base, OTTO_CI_EVENT: "comment", BUILD_REPOSITORY_ID: "repo-id", SYSTEM_TEAMPROJECTID: "proj-id" };
    const read = (p: unknown, extra: Record<string, string | undefined> = {}) =>
      readAzureEvent({ ...env, ...extra, OTTO_EVENT_PAYLOAD: JSON.stringify(p) });
    const ours = { id: "repo-id", name: "app", project: { id: "proj-id", name: "payments" } };
    expect(read(payload(ours)).kind).toBe("comment_ref");
    // Same name, another repository; same repository id claimed in another project; no repository at all.
    expect(read(payload({ ...ours, id: "other-id" }))).toMatchObject({
      kind: "none",
      reason: expect.stringContaining("not this pipeline's") as unknown,
    });
    expect(read(payload({ ...ours, project: { id: "other", name: "payments" } }))).toMatchObject({
      kind: "none",
      reason: expect.stringContaining("project") as unknown,
    });
    expect(read(payload({ ...ours, project: { name: "billing" } }), { SYSTEM_TEAMPROJECTID: undefined })).toMatchObject({ kind: "none" });
    expect(read(payload(undefined)).kind).toBe("none");
    // Without its own repository id the job cannot compare: nothing, rather than trusting the payload.
    expect(read(payload(ours), { BUILD_REPOSITORY_ID: undefined })).toMatchObject({
      kind: "none",
      reason: expect.stringContaining("BUILD_REPOSITORY_ID") as unknown,
    });
    // A thread link that names no thread.
    const noThread = payload(ours);
    noThread.resource.comment._links.threads.href = "https://x/elsewhere";
    expect(read(noThread).kind).toBe("none");
  });

  it("System.CollectionUri: Services and Server", () => {
    expect(azureCollection("https://dev.azure.com/contoso/")).toEqual({ baseUrl: "https://dev.azure.com", organization: "contoso" });
    expect(azureCollection("https://tfs.example.com/tfs/DefaultCollection/")).toEqual({
      baseUrl: "https://tfs.example.com/tfs",
      organization: "DefaultCollection",
    });
    expect(azureCollection(undefined)).toBeUndefined();
  });
});
