import { describe, expect, it } from "vitest";
import { newDocument } from "../../../../src/pr/commands/add.ts";
import {
  appendHistory,
  commitMessage,
  giveUpComment,
  nextStep,
  planInfrastructure,
  planStart,
  renderEntry,
} from "../../../../src/pr/fix/index.ts";
import { previousAttempts } from "../../../../src/pr/fix/decide.ts";
import { OTTO_MARKER, planRefresh, type PipelineStatus } from "../../../../src/pr/index.ts";
import { fixPr } from "./fix-pr.ts";

const pr = fixPr;
const NOW = new Date("2026-03-01T12:00:00.000Z");
const doc = newDocument(pr(), "github-o-r-7", 3, "2026-03-01T10:00:00.000Z");
const data = (over: Partial<typeof doc.data>) => ({ ...doc.data, ...over });

describe("planStart", () => {
  it("fixes a failed PR with attempts left", () => {
    expect(planStart(data({ status: "failed" }), pr(), NOW)).toEqual({ kind: "fix" });
  });

  it("gives up when the attempts are used, once", () => {
    expect(planStart(data({ status: "failed", fix_attempts: 3 }), pr(), NOW)).toEqual({ kind: "give_up" });
    expect(planStart(data({ status: "failed", fix_attempts: 3, gave_up: "2026-03-01T11:00:00.000Z" }), pr(), NOW)).toEqual({
      kind: "gave_up",
      since: "2026-03-01T11:00:00.000Z",
    });
    expect(planStart(data({ status: "failed", max_fix_attempts: 0 }), pr(), NOW)).toEqual({ kind: "give_up" });
  });

  it("waits while the forge still shows the head otto's pushed fix was built on, and fixes a new failing head", () => {
    const head = pr().headSha;
    expect(planStart(data({ status: "failed", fix_attempts: 1, fix_sha: "f1x", fix_base_sha: head }), pr(), NOW)).toEqual({
      kind: "fix_pending",
      sha: "f1x",
    });
    expect(planStart(data({ status: "failed", fix_attempts: 1, fix_sha: "f1x", fix_base_sha: head }), pr({ headSha: "f1x" }), NOW)).toEqual(
      { kind: "fix" },
    );
    expect(planStart(data({ status: "failed", fix_attempts: 1, fix_sha: "f1x", fix_base_sha: "older" }), pr(), NOW)).toEqual({
      kind: "fix",
    });
  });

  it("refuses forks, notifying once per head SHA", () => {
    expect(planStart(data({ status: "failed" }), pr({ fork: true, headRepo: "someone/r" }), NOW)).toEqual({ kind: "fork", notify: true });
    expect(planStart(data({ status: "failed", human_sha: "abcdef1234567890" }), pr({ fork: true }), NOW)).toEqual({
      kind: "fork",
      notify: false,
    });
  });

  it("does not start while another fix runs, but takes over a crashed one (older than two hours)", () => {
    expect(planStart(data({ status: "fixing", fix_started: "2026-03-01T11:30:00.000Z" }), pr(), NOW)).toEqual({
      kind: "busy",
      since: "2026-03-01T11:30:00.000Z",
    });
    expect(planStart(data({ status: "fixing", fix_started: "2026-03-01T09:00:00.000Z" }), pr(), NOW)).toEqual({ kind: "fix" });
  });
});

describe("the watcher and a crashed fix", () => {
  const failing: PipelineStatus = { state: "failure", headSha: "abcdef1234567890", checks: [{ name: "unit", state: "failure" }] };
  it("keeps a running fix's status, and hands a stale one back to the fix flow as a failure", () => {
    const running = { ...doc, data: data({ status: "fixing", fix_started: "2026-03-01T11:30:00.000Z" }) };
    expect(planRefresh(running, { pr: pr(), pipeline: failing }, NOW.toISOString()).data.status).toBe("fixing");
    const stale = { ...doc, data: data({ status: "fixing", fix_started: "2026-03-01T08:00:00.000Z" }) };
    const plan = planRefresh(stale, { pr: pr(), pipeline: failing }, NOW.toISOString());
    expect(plan.data.status).toBe("failed");
    expect(plan.events).toContain("failure");
  });
});

describe("planInfrastructure", () => {
  it("re-runs once per head SHA, then asks a person (notified once)", () => {
    expect(planInfrastructure(data({}), "sha1")).toEqual({ kind: "rerun" });
    expect(planInfrastructure(data({ rerun_shas: ["sha0"] }), "sha1")).toEqual({ kind: "rerun" });
    expect(planInfrastructure(data({ rerun_shas: ["sha1"] }), "sha1")).toEqual({ kind: "human", notify: true });
    expect(planInfrastructure(data({ rerun_shas: ["sha1"], human_sha: "sha1" }), "sha1")).toEqual({ kind: "human", notify: false });
  });
});

describe("nextStep", () => {
  it("waits for the pipeline after a push; retries what a fresh session can do better; gives up at the limit", () => {
    expect(nextStep("pushed", 3, 3)).toBe("wait");
    expect(nextStep("nothing", 1, 3)).toBe("retry");
    expect(nextStep("verify_failed", 2, 3)).toBe("retry");
    expect(nextStep("task_failed", 1, 3)).toBe("retry");
    expect(nextStep("review_rejected", 1, 3)).toBe("retry");
    expect(nextStep("weakened", 1, 3)).toBe("retry");
    expect(nextStep("weakened", 3, 3)).toBe("give_up");
    expect(nextStep("review_rejected", 3, 3)).toBe("give_up");
    expect(nextStep("review_failed", 1, 3)).toBe("stop");
    expect(nextStep("verify_failed", 3, 3)).toBe("give_up");
    expect(nextStep("conflict", 1, 3)).toBe("stop");
    expect(nextStep("rejected", 1, 3)).toBe("stop");
    expect(nextStep("wrong_branch", 1, 3)).toBe("stop");
  });
});

describe("Fix History", () => {
  const entry = renderEntry({
    time: "2026-03-01T12:00:00.000Z",
    trigger: "watcher",
    title: "Attempt 1",
    headSha: "abcdef1234567890",
    failedChecks: ["unit", "lint"],
    verdict: "code",
    summary: "# Pipeline Failure Summary\n\n## Verdict\ncode: x",
    commit: "0123456789abcdef",
    result: "pushed to feature/x: Guard null user",
  });

  it("renders an attempt: trigger, verdict, commit, result, summary excerpt", () => {
    expect(entry).toBe(
      [
        "### Attempt 1 — 2026-03-01T12:00:00.000Z",
        "- **Trigger**: watcher: pipeline failed on `abcdef1` (unit, lint)",
        "- **Verdict**: code",
        "- **Commit**: `0123456789abcdef`",
        "- **Result**: pushed to feature/x: Guard null user",
        "- **Failure summary**:",
        "  > # Pipeline Failure Summary",
        "  >",
        "  > ## Verdict",
        "  > code: x",
      ].join("\n"),
    );
  });

  it("replaces the placeholder, then appends; creates the section when missing; feeds previous attempts", () => {
    const first = appendHistory(doc.sections, entry);
    expect(first.find((s) => s.title === "Fix History")?.body).toBe(entry);
    const second = appendHistory(first, "### Attempt 2");
    expect(second.find((s) => s.title === "Fix History")?.body).toBe(`${entry}\n\n### Attempt 2`);
    expect(second.map((s) => s.title)).toEqual(["Fix History", "Comment History"]);
    expect(appendHistory([], "x")).toEqual([{ title: "Fix History", body: "x" }]);
    expect(previousAttempts(doc.sections)).toBeUndefined();
    expect(previousAttempts(second)).toContain("### Attempt 2");
  });
});

describe("texts", () => {
  it("gives up with the marker, the count and the last summary", () => {
    const comment = giveUpComment(3, "## Verdict\ncode: still failing");
    expect(comment.startsWith(`${OTTO_MARKER}\notto: giving up after 3 attempts`)).toBe(true);
    expect(comment).toContain("> code: still failing");
    expect(giveUpComment(1, undefined)).toContain("giving up after 1 attempt to fix");
  });

  it("writes a commit message with the session's subject and a trailer", () => {
    expect(commitMessage({ number: 7, key: "github-o-r-7", attempt: 2, subject: "Guard null user", checks: ["unit"] })).toBe(
      "Guard null user\n\nFixes the failing pipeline of PR #7 (unit).\n\nOtto-Fix: github-o-r-7 attempt 2\n",
    );
    expect(commitMessage({ number: 7, key: "k", attempt: 1, subject: undefined, checks: [] }).split("\n")[0]).toBe(
      "Fix failing checks: pipeline",
    );
  });
});
