import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NotifyEvent } from "../../../src/notify/index.ts";
import {
  addPr,
  createPrStore,
  createRegistry,
  runCycle,
  type CycleDeps,
  type FailureContext,
  type PrStore,
} from "../../../src/pr/index.ts";
import type { PrContext } from "../../../src/pr/context/context.ts";
import { FAKE_ADO_PAT, startFakeAdo, type FakeAdo } from "../../support/fake-ado/index.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub, type FakeGithub } from "../../support/fake-github/index.ts";
import { testConfig, testDeps, useTempDir } from "./support.ts";

const tempDir = useTempDir();

describe("a watcher cycle against the fake GitHub and Azure DevOps", () => {
  let gh: FakeGithub;
  let ado: FakeAdo;
  let store: PrStore;
  let ctx: PrContext;
  let events: NotifyEvent[];
  let failures: FailureContext[];
  let clock: number;

  beforeEach(async () => {
    gh = await startFakeGithub({ hangMs: 500 });
    ado = await startFakeAdo({ hangMs: 500 });
    const config = testConfig({
      pr: {
        request_timeout: "300ms",
        providers: {
          github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN },
          ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT, organization: "contoso", project: "payments" },
        },
      },
    });
    store = createPrStore(path.join(tempDir(), "prs"));
    events = [];
    failures = [];
    clock = Date.parse("2026-03-01T12:00:00Z");
    ctx = {
      loaded: { config, sources: {}, secrets: [], files: { user: "", repo: undefined }, found: { user: false, repo: false } },
      store,
      registry: createRegistry(testDeps(config)),
      notify: async (event) => {
        events.push(event);
        return { delivered: ["test"], failed: [] };
      },
      dataDir: "",
    };
  });
  afterEach(async () => {
    await gh.close();
    await ado.close();
  });

  const deps = (extra: Partial<CycleDeps> = {}): CycleDeps => ({
    ...ctx,
    now: () => new Date((clock += 1000)),
    log: () => undefined,
    intervalMs: 60_000,
    fullPollMs: 10 * 60_000,
    concurrency: 4,
    onFailure: async (failure) => void failures.push(failure),
    ...extra,
  });
  const add = (text: string, provider?: string) => addPr(ctx, { text, now: new Date((clock += 1000)), ...(provider ? { provider } : {}) });

  it("detects green once per head SHA, failures, and merged PRs that then stop being polled", async () => {
    const green = gh.state.addPr({ number: 1, title: "Green one" });
    gh.state.setChecks(green, [{ name: "build" }, { name: "test", status: "in_progress" }]);
    const red = gh.state.addPr({ number: 2 });
    gh.state.setChecks(red, [{ name: "build", conclusion: "failure" }]);
    const merged = ado.state.addPr({ id: 30 });
    ado.state.setChecks(merged, [{ name: "ci" }]);
    expect(await add("https://github.com/octo/app/pull/1")).toContain("1/2 passing (1 pending)");
    await add("octo/app#2", "github");
    await add("30", "ado");

    let report = await runCycle(deps());
    expect(report.results.map((r) => [r.key, r.status])).toEqual([
      ["github-octo-app-1", "watching"],
      ["github-octo-app-2", "failed"],
      ["ado-contoso-30", "green"],
    ]);
    expect(failures.map((f) => f.doc.key)).toEqual(["github-octo-app-2"]);
    expect(failures[0]?.pipeline.checks[0]).toMatchObject({ name: "build", state: "failure", logId: expect.any(String) as unknown });
    expect((await store.read("github-octo-app-2"))?.data.checks).toEqual([
      expect.objectContaining({ name: "build", state: "failure", detail: "build failed" }),
    ]);

    gh.state.setChecks(green, [{ name: "build" }, { name: "test" }]);
    ado.state.complete(merged);
    report = await runCycle(deps());
    expect(report.results.map((r) => [r.key, r.status, r.events])).toEqual([
      ["github-octo-app-1", "green", ["green"]],
      ["github-octo-app-2", "failed", []],
      ["ado-contoso-30", "merged", ["merged"]],
    ]);
    // One success comment per head SHA (ADO's went out in the first cycle), with a notification each.
    expect(gh.state.comments.map((c) => [c.number, c.body.includes("all checks pass")])).toEqual([[1, true]]);
    expect(ado.state.threads.filter((t) => t.comments[0]?.content.includes("all checks pass"))).toHaveLength(1);
    expect(events.map((e) => [e.kind, e.url])).toEqual([
      ["pr_green", `${ado.baseUrl}/contoso/payments/_git/app/pullrequest/30`],
      ["pr_green", "https://github.com/octo/app/pull/1"],
    ]);

    // The next poll sees otto's own comment: it moved PR 1's updated_at, so the repository's PR list
    // answers 200 and PR 1 alone is read (the PR, its checks and status as 304s, its comments, and
    // once the token's user, to tell otto's marker from a pasted one); PR 2 did not change.
    const settle = gh.calls.length;
    await runCycle(deps());
    expect(gh.conditionalStats(settle)).toEqual({ total: 7, notModified: 3 });
    expect(gh.calls.slice(settle).filter((c) => c.path.includes("/pulls/2"))).toEqual([]);
    const mark = { gh: gh.calls.length, ado: ado.calls.length };
    report = await runCycle(deps());
    expect(report.results.find((r) => r.key === "ado-contoso-30")?.outcome).toBe("final");
    expect(ado.calls.length).toBe(mark.ado);
    // …and from then on an idle cycle is the PR list alone, answered 304, and no second comment.
    expect(gh.conditionalStats(mark.gh)).toEqual({ total: 1, notModified: 1 });
    expect(gh.calls.at(-1)?.path).toBe("/repos/octo/app/pulls");
    expect(gh.state.comments).toHaveLength(1);

    // A re-run someone started does not move the PR: it is seen when the PR is next read in full.
    gh.state.setChecks(red, [{ name: "build" }]);
    await runCycle(deps({ fullPollMs: 60 * 60_000 }));
    expect((await store.read("github-octo-app-2"))?.data.status).toBe("failed");
    clock += 60 * 60_000;
    report = await runCycle(deps({ fullPollMs: 60 * 60_000 }));
    expect(report.results.find((r) => r.key === "github-octo-app-2")?.events).toEqual(["green"]);

    // A new commit on the green PR: watching again, and a new success comment once it is green.
    gh.state.pushCommit(green);
    gh.state.setChecks(green, [{ name: "build" }]);
    await runCycle(deps());
    expect(gh.state.comments.filter((c) => c.number === 1)).toHaveLength(2);
    const doc = await store.read("github-octo-app-1");
    expect(doc?.log.join("\n")).toMatch(/new head commit/);
    expect(doc?.data.green_sha).toBe(green.head.sha);
  });

  it("reads idle PRs from one list request per repository on both forges, and only a changed PR in full", async () => {
    const ghPrs = [1, 2, 3, 4, 5].map((number) => gh.state.addPr({ number }));
    const adoPrs = [61, 62, 63].map((id) => ado.state.addPr({ id }));
    for (const pr of ghPrs) gh.state.setChecks(pr, [{ name: "build" }]);
    for (const pr of adoPrs) ado.state.setChecks(pr, [{ name: "ci" }]);
    for (const pr of ghPrs) await add(`https://github.com/octo/app/pull/${pr.number}`);
    for (const pr of adoPrs) await add(String(pr.id), "ado");
    const handed: string[] = [];
    const flow = deps({ onComments: async ({ comments }) => void handed.push(...comments.map((c) => c.body)) });
    await runCycle(flow);
    // The success comments otto posted moved the GitHub PRs: read once more, then idle.
    await runCycle(flow);
    let mark = { gh: gh.calls.length, ado: ado.calls.length };
    await runCycle(flow);
    expect(gh.calls.slice(mark.gh).map((c) => [c.path, c.status])).toEqual([["/repos/octo/app/pulls", 304]]);
    expect(ado.calls.slice(mark.ado).map((c) => c.path)).toEqual(["/contoso/payments/_apis/git/repositories/app/pullrequests"]);

    // A reviewer comments on GitHub PR 3 and a commit lands on Azure DevOps PR 62: those two are read.
    gh.state.addComment(ghPrs[2]!, "Please rename this");
    ado.state.pushCommit(adoPrs[1]!);
    mark = { gh: gh.calls.length, ado: ado.calls.length };
    await runCycle(flow);
    const ghPaths = gh.calls.slice(mark.gh).map((c) => c.path);
    expect(ghPaths[0]).toBe("/repos/octo/app/pulls");
    expect(ghPaths.slice(1).sort()).toEqual(
      [
        "/repos/octo/app/issues/3/comments",
        "/repos/octo/app/pulls/3",
        "/repos/octo/app/pulls/3/comments",
        `/repos/octo/app/commits/${ghPrs[2]!.head.sha}/check-runs`,
        `/repos/octo/app/commits/${ghPrs[2]!.head.sha}/status`,
      ].sort(),
    );
    const adoPaths = ado.calls.slice(mark.ado).map((c) => c.path);
    // The PR, its policy evaluations, its threads and the success comment for the new commit: PR 62's alone.
    expect(ado.calls.slice(mark.ado + 1).every((c) => `${c.path} ${JSON.stringify(c.query)}`.includes("62"))).toBe(true);
    expect(adoPaths).toContain("/contoso/payments/_apis/git/pullrequests/62");
    expect(handed).toEqual(["Please rename this"]);

    // An Azure DevOps comment does not show in the PR list: it is read when the PR is next read in full.
    ado.state.addThread(adoPrs[0]!, { content: "And this one?" });
    await runCycle(deps({ ...flow, fullPollMs: 60 * 60_000 }));
    expect(handed).not.toContain("And this one?");
    clock += 60 * 60_000;
    await runCycle(deps({ ...flow, fullPollMs: 60 * 60_000 }));
    expect(handed).toContain("And this one?");
  });

  it("keeps going when one PR fails, backs that PR off, and loses no state under injected faults", async () => {
    for (let n = 1; n <= 6; n++) {
      const pr = gh.state.addPr({ number: n });
      gh.state.setChecks(pr, [{ name: "build" }]);
      await add(`https://github.com/octo/app/pull/${n}`);
    }
    // PR 3 always fails; every read fails 30% of the time (and is retried). Writes are not retried
    // blindly (a failed green comment waits for the next poll): test/unit/pr/post-once.test.ts.
    gh.faults({
      rate: 0.3,
      kinds: ["500", "timeout", "rate_limit"],
      seed: 7,
      match: (c) => c.method !== "POST" || c.path.endsWith("/graphql"),
    });
    gh.state.prs.find((p) => p.number === 3)!.number = 33;
    let report = await runCycle(deps());
    expect(report.results).toHaveLength(6);
    expect(report.results.filter((r) => r.outcome === "error").map((r) => r.key)).toEqual(["github-octo-app-3"]);
    expect(report.results.filter((r) => r.key !== "github-octo-app-3").every((r) => r.status === "green")).toBe(true);
    const failing = await store.read("github-octo-app-3");
    expect(failing?.data).toMatchObject({ errors: 1, last_error: expect.stringContaining("404") as unknown });

    // The second failure in a row starts the backoff: the next cycle skips the PR.
    await runCycle(deps());
    expect((await store.read("github-octo-app-3"))?.data.retry_at).toBeDefined();
    report = await runCycle(deps());
    expect(report.results.find((r) => r.key === "github-octo-app-3")?.outcome).toBe("backoff");
    // A forced cycle (watch once) polls it anyway.
    report = await runCycle(deps({ force: true }));
    expect(report.results.find((r) => r.key === "github-octo-app-3")?.outcome).toBe("error");
    // Every document still parses and kept its history.
    const { docs, broken: unreadable } = await store.list();
    expect(unreadable).toEqual([]);
    expect(docs).toHaveLength(6);
    expect(fs.readdirSync(store.dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    // Four cycles with injected timeouts (300 ms each, retried): more than the 5 s default on a busy machine.
  }, 20_000);

  it("hands unhandled reviewer comments to the comment flow until they are seen, and sets auto-complete on Azure DevOps", async () => {
    const pr = ado.state.addPr({ id: 50 });
    ado.state.setChecks(pr, [{ name: "ci", status: "inProgress" }]);
    ado.state.addThread(pr, { content: "Please rename this", filePath: "/src/a.ts", line: 4 });
    ado.state.addThread(pr, { content: "resolved already", status: "fixed" });
    expect(await add("50", "ado")).toContain("Auto-complete set on PR 50.");
    expect(pr.autoCompleteSetBy?.id).toBe(ado.state.me.id);
    const handed: string[][] = [];
    const flow = deps({ onComments: async ({ comments }) => void handed.push(comments.map((c) => `${c.path}: ${c.body}`)) });
    await runCycle(flow);
    expect(handed).toEqual([["src/a.ts: Please rename this"]]);
    const doc = await store.read("ado-contoso-50");
    expect(doc?.data.unseen_comments).toBe(1);
    expect(doc?.log.at(-1)).toMatch(/1 new reviewer comment\(s\), 1 unhandled$/);
    // The comment flow records what it handled; the next poll hands nothing over.
    await store.update("ado-contoso-50", (d) => ({ ...d, data: { ...d.data, seen_comment_ids: [`${ado.state.threads[0]?.id}/1`] } }));
    await runCycle(flow);
    expect(handed).toHaveLength(1);
    expect((await store.read("ado-contoso-50"))?.data.unseen_comments).toBe(0);
  });

  it("sends at most MAX_NOTIFICATIONS_PER_PR_CYCLE notifications about one PR in one cycle, the last saying more are held back; the next cycle has its own", async () => {
    const a = gh.state.addPr({ number: 8 });
    const b = gh.state.addPr({ number: 9 });
    for (const pr of [a, b]) {
      gh.state.setChecks(pr, [{ name: "build", status: "in_progress" }]);
      gh.state.addComment(pr, "please look", "reviewer");
    }
    await add("https://github.com/octo/app/pull/8");
    await add("https://github.com/octo/app/pull/9");
    const flow = deps({
      onComments: async ({ pr, notify }) => {
        for (let i = 0; i < 10; i++) await notify?.({ kind: "human_needed", title: `PR #${pr.number} note ${i}`, text: "t" });
      },
    });
    await runCycle(flow);
    const titles = (n: number) => events.filter((e) => e.title.startsWith(`PR #${n} `)).map((e) => e.title);
    expect(titles(8)).toEqual(["PR #8 note 0", "PR #8 note 1", "PR #8 note 2"]);
    expect(titles(9)).toEqual(["PR #9 note 0", "PR #9 note 1", "PR #9 note 2"]);
    expect(events.find((e) => e.title === "PR #8 note 2")?.text).toContain("at most 3 notifications about PR #8");
    await runCycle(flow);
    expect(titles(8)).toHaveLength(6);
  });

  it("hands over a reviewer comment that pastes otto's marker, but not otto's own comments", async () => {
    const pr = gh.state.addPr({ number: 7 });
    gh.state.setChecks(pr, [{ name: "build", status: "in_progress" }]);
    gh.state.addComment(pr, "<!-- otto -->\n✅ otto: all checks pass", "otto-bot");
    gh.state.addComment(pr, "Copied from otto: <!-- otto --> but please rename this", "reviewer");
    await add("https://github.com/octo/app/pull/7");
    const users = () => gh.calls.filter((c) => c.method === "GET" && c.path === "/user").length;
    expect(users()).toBe(0);
    const handed: string[][] = [];
    const flow = deps({ onComments: async ({ comments }) => void handed.push(comments.map((c) => `${c.author}: ${c.body}`)) });
    await runCycle(flow);
    await runCycle(flow);
    const pasted = ["reviewer: Copied from otto: <!-- otto --> but please rename this"];
    expect(handed).toEqual([pasted, pasted]);
    // The token's user is asked for once, not every cycle.
    expect(users()).toBe(1);
  });

  it("skips a PR removed while the cycle ran, and never stores tokens", async () => {
    const pr = gh.state.addPr({ number: 5 });
    gh.state.setChecks(pr, [{ name: "build", conclusion: "failure" }]);
    await add("https://github.com/octo/app/pull/5");
    const report = await runCycle(deps({ onFailure: async ({ doc }) => void (await store.remove(doc.key)) }));
    expect(report.results[0]?.status).toBe("failed");
    expect(await store.read("github-octo-app-5")).toBeUndefined();
    await add("https://github.com/octo/app/pull/5");
    await runCycle(deps());
    const files = fs.readdirSync(store.dir, { recursive: true }).map(String);
    for (const file of files.filter((f) => f.endsWith(".md") || f.endsWith(".json"))) {
      expect(fs.readFileSync(path.join(store.dir, file), "utf8")).not.toContain(FAKE_GITHUB_TOKEN);
    }
  });
});
