import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { slashCommand, survivors, text, useE2E, type Workspace, until as waitUntil } from "../../support/index.ts";
import { useForges } from "../pr/forges.ts";
import {
  analysis,
  BRANCH,
  cloneOfPr,
  field,
  FIXED,
  isAnalysis,
  isFix,
  KEY,
  PR_URL,
  readDoc,
  summary,
  fixer,
  fixReview,
} from "../pr/fix-script.ts";

/*
 * The headless watcher on its own: `opencode serve` with OTTO_WATCH=1 (what `/otto-pr watch start
 * --detach` and the systemd unit run), the PR tracked beforehand by another OpenCode process, and
 * not one tool call in the serve process. Everything the daemon does it must do from the plugin's
 * load: poll, run the fix flow's sessions, push, answer a reviewer. A runtime that is only
 * completed by a tool call (no session runner, no parent session, no TUI for toasts) fails here.
 */

const JOB_LOG = [
  "2026-02-06T10:01:00.0000000Z FAIL test/math.test.js",
  "2026-02-06T10:01:00.0000000Z   ● add › adds two numbers: expected 3, received -1",
  "2026-02-06T10:03:00.0000000Z ##[error]Process completed with exit code 1.",
].join("\n");
const QUESTION = "Why is add() not a method of a Calculator class?";
const ANSWER = "A free function is all the callers need; a class would add state nobody uses.";

const watcherRecord = (ws: Workspace): { pid?: number; mode?: string } | undefined => {
  try {
    return JSON.parse(fs.readFileSync(path.join(ws.dirs.dataHome, "otto", "watcher.json"), "utf8")) as { pid?: number; mode?: string };
  } catch {
    return undefined;
  }
};

/** Polls `probe` until it returns something other than undefined/false; a bound, not an assertion on time. */
/** The daemon starts OpenCode, a fix and a reply on its own: give it time. */
const until = <T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> =>
  waitUntil(what, probe, 120_000);

describe("the headless PR watcher (opencode serve, OTTO_WATCH=1) with no tool call", () => {
  const e2e = useE2E();
  const forges = useForges();

  it("fixes a red PR and answers a collaborator's review comment on its own; nothing it started outlives it", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(pr, [{ name: "build" }, { name: "unit", conclusion: "failure", log: JOB_LOG }]);
    // The reviewer is a collaborator (someone otto answers whatever its rules on author_association).
    // The fake reports associations on reviews; its comment payloads still say CONTRIBUTOR.
    f.gh.state.associations.set("reviewer", "COLLABORATOR");
    const question = f.gh.state.addReviewComment(pr, { path: "src/math.js", line: 1, body: QUESTION });
    const config = f.ottoConfig({ models: { primary: "mock/m1" }, server: { poll_interval: "1s" } });
    const ws = await e2e.workspace({ userOttoConfig: config, env: f.env, remote: true });
    await cloneOfPr(ws);
    const before = (await ws.repo.remoteLog(BRANCH))[0]?.sha;

    // Tracked the way a user does it, in another OpenCode process (its tool call is not the daemon's).
    e2e.model.script(...slashCommand("otto_pr"));
    const add = await e2e.run(ws, ["run", "--command", "otto-pr", "--", "add", PR_URL]);
    expect(add.exitCode, add.stderr).toBe(0);
    expect(add.stdout).toContain("Tracking PR #1");
    expect(e2e.model.pending()).toEqual([]);
    const requestsBefore = e2e.model.requests.length;

    // What the daemon's sessions will be asked: the fix flow's analysis and fix, one comment session.
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixer(ws, FIXED), {
      label: "answer the question",
      match: { lastUser: QUESTION, lastRole: "user" },
      reply: text(`Answered.\n\nBEGIN_JSON\n${JSON.stringify({ decision: "BY_DESIGN", reply: ANSWER, fix_description: "" })}\nEND_JSON`),
    });

    const started = Date.now();
    const serve = await e2e.serve(ws, { env: { OTTO_WATCH: "1" } });
    // The harness's event stream makes serve load the project (and otto), as the detached start's
    // one request does. From here on the test only reads: the fake forge, git, the files and, at the
    // end, the session list and events.
    const record = await until("the watcher to take its lock", () => {
      const r = watcherRecord(ws);
      return r?.mode === "detached" && r;
    });
    expect(survivors(serve.process)).toContain(record.pid);

    // (a) The red PR is fixed: one fast-forward commit with the fix on the PR's branch in the remote.
    const fixed = await until("the fix on the remote PR branch", async () => {
      // A fix flow that stopped (e.g. no session runner in a runtime completed only by a tool call) fails at once.
      const stopped = /### Error — .*\n(?:- .*\n)*?- \*\*Result\*\*: (.*)/.exec(readDoc(ws));
      if (stopped) throw new Error(`the daemon's fix flow stopped: ${stopped[1]}`);
      const log = await ws.repo.remoteLog(BRANCH);
      return log[1]?.sha === before && log;
    });
    expect(fixed[0]?.subject).toBe("Add instead of subtract in add()");
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(await ws.repo.gitRemote(["log", "-1", "--format=%B", BRANCH])).toContain(`Otto-Fix: ${KEY} attempt 1`);
    const job = f.gh.state.checkRuns.find((r) => r.name === "unit")!;
    expect(f.gh.calls.some((c) => c.method === "GET" && c.path.endsWith(`/actions/jobs/${job.id}/logs`))).toBe(true);
    await until("the fix recorded in the PR document", () => field(ws, "fix_sha") === fixed[0]?.sha);
    expect(readDoc(ws)).toContain("- **Trigger**: watcher: pipeline failed on");
    expect(readDoc(ws)).toContain(`- **Result**: pushed to ${BRANCH}: Add instead of subtract in add()`);

    // (b) The reviewer's question is answered in its thread, and the thread resolved.
    const reply = await until("otto's reply to the review comment", () =>
      f.gh.state.reviewComments.find((c) => c.in_reply_to_id === question.id),
    );
    expect(reply.user.login).toBe("otto-bot");
    expect(reply.body).toContain(ANSWER);
    expect(reply.body).toContain(`<!-- otto:reply:review-${question.id}:BY_DESIGN -->`);
    expect(f.gh.calls.some((c) => c.method === "POST" && c.path.endsWith(`/pulls/1/comments/${question.id}/replies`))).toBe(true);
    await until("the thread resolved", () => f.gh.state.threads.get(question.thread)?.resolved === true);
    await until("the answer recorded in the PR document", () => readDoc(ws).includes(`### Comment review-${question.id} — @reviewer`));

    // (c) CI passes on the pushed commit: the daemon says so once on the PR and notifies (webhook,
    // and a toast that no TUI shows but that must not fail either).
    f.gh.state.pushCommit(pr);
    f.gh.state.setChecks(pr, [{ name: "build" }, { name: "unit" }]);
    const hook = await until("the pr_green webhook", () => f.hooks.calls.find((c) => (c.body as { event?: string }).event === "pr_green"));
    expect(hook.body).toMatchObject({ source: "otto", event: "pr_green", url: PR_URL });
    expect(f.gh.state.comments.map((c) => c.body)).toEqual([expect.stringContaining("✅ otto: all checks pass on")]);
    expect(field(ws, "status")).toBe("green");
    // The toast is sent beside the webhook, not before it.
    await until("the pr_green toast", () => serve.events.all.some((e) => e.type === "tui.toast.show"));
    expect(ws.logs()).not.toContain("notification via");

    // No tool call in the daemon: its model requests are the flows' child sessions (never an agent
    // that is offered otto's tools), each session ran with the role asked for, and every one was
    // deleted after use: the only sessions left are the `opencode run` of the add.
    const daemon = e2e.model.turns().filter((r) => r.seq > requestsBefore);
    expect(daemon.filter((r) => r.toolNames.some((n) => n.startsWith("otto_")))).toEqual([]);
    expect(daemon.filter((r) => r.lastRole === "user").map((r) => r.answeredBy)).toEqual(
      expect.arrayContaining(["analysis", "fix", "answer the question"]),
    );
    expect(daemon.find(isAnalysis)?.system).toContain("You are a rigorous, independent reviewer");
    expect(daemon.find(isFix)?.system).toContain("You are an executor working for Otto");
    const sessions = (await serve.client.session.list({ throwOnError: true })).data;
    expect(sessions.filter((s) => s.time.created >= started)).toEqual([]);
    expect(e2e.model.unmatched()).toEqual([]);
    expect(e2e.model.pending()).toEqual([]);
    expect(serve.output()).not.toContain("WeakMap keys must be objects");

    // Stopping the daemon stops everything it started (its sessions' tools, git, checks).
    await serve.close();
    expect(survivors(serve.process)).toEqual([]);
  }, 300_000);
});
