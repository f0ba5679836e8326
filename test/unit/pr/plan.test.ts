import { describe, expect, it } from "vitest";
import { newDocument } from "../../../src/pr/commands/add.ts";
import { pipelineSummary, planRefresh, type PipelineStatus, type PrInfo } from "../../../src/pr/index.ts";
import { backoffMs, planError, shouldPoll } from "../../../src/pr/watch/plan.ts";

const pr = (over: Partial<PrInfo> = {}): PrInfo => ({
  provider: "github",
  number: 1,
  repo: "o/r",
  url: "https://github.com/o/r/pull/1",
  title: "T",
  state: "open",
  draft: false,
  sourceBranch: "f",
  targetBranch: "main",
  headSha: "sha1",
  author: "a",
  createdAt: "",
  meta: {},
  ...over,
});
const pipeline = (state: PipelineStatus["state"], headSha = "sha1"): PipelineStatus => ({
  state,
  headSha,
  checks:
    state === "failure"
      ? [
          { name: "lint", state: "failure" },
          { name: "unit", state: "success" },
        ]
      : [{ name: "unit", state: state === "success" ? "success" : "pending" }],
});
const NOW = "2026-03-01T12:00:00.000Z";

describe("planRefresh", () => {
  const doc = newDocument(pr(), "github-o-r-1", 5, "2026-03-01T10:00:00.000Z");

  it("goes green once per head SHA", () => {
    const plan = planRefresh(doc, { pr: pr(), pipeline: pipeline("success"), comments: [] }, NOW);
    expect(plan).toMatchObject({
      events: ["green"],
      postGreenComment: true,
      data: { status: "green", pipeline: "success", last_checked: NOW },
    });
    expect(plan.log).toEqual(["watching → green: pipeline success (1/1 passing)"]);
    const after = { ...doc, data: { ...plan.data, green_sha: "sha1" } };
    expect(planRefresh(after, { pr: pr(), pipeline: pipeline("success") }, NOW)).toMatchObject({
      events: [],
      postGreenComment: false,
      log: [],
    });
  });

  it("records failures, and leaves a PR the fix flow is fixing alone", () => {
    const failed = planRefresh(doc, { pr: pr(), pipeline: pipeline("failure") }, NOW);
    expect(failed).toMatchObject({ events: ["failure"], data: { status: "failed" } });
    expect(failed.log).toEqual(["watching → failed: pipeline failed: lint (1/2 passing (1 failing))"]);
    const fixing = { ...doc, data: { ...doc.data, status: "fixing" as const } };
    expect(planRefresh(fixing, { pr: pr(), pipeline: pipeline("failure") }, NOW).data.status).toBe("fixing");
    // A new commit on a failed PR: watching again while CI runs.
    const red = { ...doc, data: failed.data };
    expect(planRefresh(red, { pr: pr({ headSha: "sha2" }), pipeline: pipeline("pending", "sha2") }, NOW)).toMatchObject({
      events: ["new_commit"],
      data: { status: "watching", head_sha: "sha2" },
    });
  });

  it("stops at merged, closed and abandoned", () => {
    for (const state of ["merged", "closed", "abandoned"] as const) {
      const plan = planRefresh(doc, { pr: pr({ state }) }, NOW);
      expect(plan).toMatchObject({ events: [state], data: { status: state } });
      expect(shouldPoll({ ...doc, data: plan.data }, new Date(NOW), true)).toBe("final");
    }
  });

  it("counts reviewer comments otto has not handled, ignoring its own and resolved ones", () => {
    const comments = [
      { id: "issue-1", kind: "conversation" as const, author: "r", body: "please fix", createdAt: "", resolved: false },
      { id: "issue-2", kind: "conversation" as const, author: "otto", body: "<!-- otto -->\nall green", createdAt: "", resolved: false },
      { id: "review-3", kind: "inline" as const, author: "r", body: "nit", createdAt: "", resolved: true },
    ];
    expect(planRefresh(doc, { pr: pr(), pipeline: pipeline("pending"), comments }, NOW)).toMatchObject({
      events: ["new_comments"],
      data: { unseen_comments: 1 },
    });
  });

  it("backs a failing PR off: the next cycle after one error, then doubling up to an hour", () => {
    expect([1, 2, 3, 4, 10].map((n) => backoffMs(n, 60_000))).toEqual([0, 120_000, 240_000, 480_000, 3_600_000]);
    const once = planError(doc, "boom", new Date(NOW), 60_000);
    expect(once.data).toMatchObject({ errors: 1, last_error: "boom", retry_at: undefined });
    const twice = planError({ ...doc, data: once.data }, "Bearer abcdefghijklmnopqrstuvwxyz", new Date(NOW), 60_000);
    expect(twice.data).toMatchObject({ errors: 2, retry_at: "2026-03-01T12:01:30.000Z", last_error: "[REDACTED]" });
    expect(shouldPoll({ ...doc, data: twice.data }, new Date(NOW), false)).toBe("backoff");
    expect(shouldPoll({ ...doc, data: twice.data }, new Date(NOW), true)).toBe("poll");
  });

  it("summarises pipelines as passing of total, with failing and pending counts", () => {
    expect(pipelineSummary([{ state: "success" }, { state: "success" }, { state: "failure" }])).toBe("2/3 passing (1 failing)");
    expect(pipelineSummary([{ state: "skipped" }, { state: "pending" }])).toBe("1/2 passing (1 pending)");
    expect(pipelineSummary([])).toBe("no checks");
  });
});
