import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CiState, parseState, renderState } from "../../../src/pr/ci/index.ts";
import { fingerprintLog } from "../../../src/pr/fix/fingerprint.ts";
import { trimLog } from "../../../src/pr/fix/trim-log.ts";
import { recordFigure } from "../../support/figures.ts";
import { pathWithout, slashCommand, text, useE2E, type Workspace } from "../../support/index.ts";
import { useForges, type Forges } from "../pr/forges.ts";
import {
  BRANCH,
  BROKEN,
  FIXED,
  analysis,
  cloneOfPr,
  fixReview,
  fixer,
  followUp,
  isAnalysis,
  isFix,
  pushBehindOttosBack,
  summary,
} from "../pr/fix-script.ts";
import { until } from "../../support/wait.ts";
import { hang } from "../../support/model-script.ts";
import { eventFile, example, freshRunner, rewrite } from "../ci/payloads.ts";
import { jobPermissions, jobRuns, pendingJobs, stepEnv } from "./workflow-job.ts";

/*
 * otto's PR work as a GitHub Actions job: real `opencode run --command otto-pr -- ci` in the PR's
 * checkout, a fresh HOME and XDG data for every run (nothing carries over but the forge), the
 * Actions variables and GitHub's own example webhook payloads rewritten to the fake GitHub, whose
 * API otto finds through GITHUB_API_URL alone (the config names no API URL), and a bare remote.
 */

const JOB_LOG = [
  "2026-02-06T10:01:00.0000000Z FAIL test/math.test.js",
  "2026-02-06T10:01:00.0000000Z   ● add › adds two numbers: expected 3, received -1",
  "2026-02-06T10:03:00.0000000Z ##[error]Process completed with exit code 1.",
].join("\n");

type Payload = Record<string, unknown>;

describe("/otto-pr ci on GitHub Actions (real OpenCode, fake GitHub, real git)", () => {
  const e2e = useE2E();
  const forges = useForges();

  async function setup(options: { checkout?: "main" | "branch"; maxFixAttempts?: number } = {}) {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(pr, [{ name: "build" }, { name: "unit", conclusion: "failure", log: JOB_LOG }]);
    // No api_url: the job's GITHUB_API_URL says where GitHub is.
    const ws = await e2e.workspace({
      remote: true,
      userOttoConfig: {
        models: { primary: "mock/m1" },
        pr: {
          request_timeout: "2s",
          ...(options.maxFixAttempts !== undefined ? { max_fix_attempts: options.maxFixAttempts } : {}),
          // The fake GitHub has no secondary rate limits: no pauses between writes (pr-comments checks them).
          providers: { github: { pause_writes: false } },
        },
      },
      env: { GITHUB_TOKEN: f.env.GITHUB_TOKEN! },
    });
    await cloneOfPr(ws);
    // actions/checkout leaves its token in the checkout's own config as an extraheader (persist-credentials).
    const basic = Buffer.from(`x-access-token:${f.env.GITHUB_TOKEN ?? ""}`).toString("base64");
    await ws.repo.git(["config", "http.https://github.com/.extraheader", `AUTHORIZATION: basic ${basic}`]);
    // The job's checkout is of the default branch (workflow_run runs there): otto moves it to the PR's branch.
    if (options.checkout !== "branch") await ws.repo.git(["checkout", "-q", "main"]);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
    const before = (await ws.repo.remoteLog(BRANCH))[0]?.sha;
    return { f, pr, ws, before };
  }

  /** One job: `opencode run --command otto-pr -- ci` with the event `name`/`payload`, on a fresh runner. */
  async function job(ws: Workspace, f: Forges, name: string, payload: Payload, extra: Record<string, string> = {}, signal?: AbortSignal) {
    const { file, dir } = eventFile(payload);
    try {
      const env = {
        ...freshRunner(ws.root),
        GITHUB_ACTIONS: "true",
        GITHUB_EVENT_NAME: name,
        GITHUB_EVENT_PATH: file,
        GITHUB_REPOSITORY: "octo/app",
        GITHUB_API_URL: f.gh.apiUrl,
        GITHUB_SERVER_URL: "https://github.com",
        ...extra,
      };
      return await e2e.run(ws, ["run", "--command", "otto-pr", "--", "ci"], { env, timeoutMs: 150_000, ...(signal ? { signal } : {}) });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  const workflowRun = (f: Forges, sha: string, headRepo = "octo/app"): Payload => {
    const p = rewrite(
      example("workflow_run", (e) => e.action === "completed" && (e.workflow_run as { pull_requests: unknown[] }).pull_requests.length > 0),
      { apiUrl: f.gh.apiUrl, repo: "octo/app" },
    );
    const run = p.workflow_run as Record<string, unknown>;
    run.conclusion = "failure";
    run.head_sha = sha;
    run.head_branch = BRANCH;
    (run.head_repository as Record<string, unknown>).full_name = headRepo;
    run.pull_requests =
      headRepo === "octo/app"
        ? [
            {
              number: 1,
              head: { ref: BRANCH, sha, repo: { full_name: "octo/app" } },
              base: { ref: "main", sha: "0".repeat(40), repo: { full_name: "octo/app" } },
            },
          ]
        : [];
    return p;
  };

  const issueComment = (
    f: Forges,
    comment: { id: number; body: string; user: string; association: string; created: string },
    prNumber = 1,
  ): Payload => {
    const p = rewrite(
      example("issue_comment", (e) => e.action === "created"),
      { apiUrl: f.gh.apiUrl, repo: "octo/app" },
    );
    const issue = p.issue as Record<string, unknown>;
    issue.number = prNumber;
    issue.pull_request = {
      url: `${f.gh.apiUrl}/repos/octo/app/pulls/${prNumber}`,
      html_url: `https://github.com/octo/app/pull/${prNumber}`,
    };
    const c = p.comment as Record<string, unknown>;
    c.id = comment.id;
    c.body = comment.body;
    c.author_association = comment.association;
    c.created_at = comment.created;
    (c.user as Record<string, unknown>).login = comment.user;
    return p;
  };

  const stateComments = (f: Forges) =>
    f.gh.state.comments.filter((c) => c.body.includes("<!-- otto:state v1 ") && c.user.login === "otto-bot");
  const modelWork = () => e2e.model.requests.filter((r) => isAnalysis(r) || isFix(r)).length;
  /** What one job cost: forge requests and model calls, with the prompts' size (docs/ci.md, "What one event costs"). */
  const spent = (f: Forges, from: { calls: number; model: number }) => {
    const calls = f.gh.calls.slice(from.calls);
    const model = e2e.model.requests.slice(from.model);
    const chars = model.reduce((n, r) => n + r.system.length + JSON.stringify(r.messages).length, 0);
    return {
      requests: calls.length,
      writes: calls.filter((c) => c.method !== "GET").length,
      modelCalls: model.length,
      promptKb: Math.round(chars / 102.4) / 10,
    };
  };
  const mark = (f: Forges) => ({ calls: f.gh.calls.length, model: e2e.model.requests.length });

  it("a failed workflow_run gets a fix pushed (fast-forward), its state on the PR; a forged state comment steers nothing; the same event again on a fresh runner does nothing", async () => {
    const { f, pr, ws, before } = await setup();
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixer(ws, FIXED));
    const event = workflowRun(f, pr.head.sha);
    // Someone pastes otto's state marker claiming the head is done and otto gave up: it must not stop otto.
    f.gh.state.addComment(
      pr,
      renderState(CiState.parse({ handled_heads: [pr.head.sha], gave_up: "2026-01-01T00:00:00Z", fix_attempts: 99 }), []),
      "mallory",
    );

    const atFirst = mark(f);
    const first = await job(ws, f, "workflow_run", event);
    // Measured before any assertion: the forged comment stopped the fix when nothing was pushed.
    const pushedFirst = (await ws.repo.remoteLog(BRANCH))[0]?.sha !== before;
    recordFigure({ name: "ci: forged state comments that stopped a fix", tried: 1, through: pushedFirst ? 0 : 1 });
    expect(first.exitCode, first.stderr).toBe(0);
    console.log("ci cost: failed workflow_run, fixed", spent(f, atFirst));
    expect(first.stdout).toContain("a state comment by mallory");
    expect(first.stdout).toContain("## otto ci: octo/app#1");
    expect(first.stdout).toContain("### fix: github-octo-app-1 (pushed)");
    expect(first.stdout).toMatch(/\*\*Cost\*\*: .* \(ledger label `octo\/app#1`\)/);
    // Progress reached the job's log while the work ran.
    expect(first.stderr).toContain("otto ci: workflow_run.completed on octo/app#1");

    // One commit on top of the PR's head in the remote: a fast-forward, nothing rewritten.
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log[1]?.sha).toBe(before);
    expect(log[0]?.subject).toBe("Add instead of subtract in add()");
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    expect(
      await ws.repo.gitRemote(["merge-base", "--is-ancestor", before!, BRANCH]).then(
        () => true,
        () => false,
      ),
    ).toBe(true);

    // The state lives in one comment of the token's user, machine-readable.
    const states = stateComments(f);
    expect(states).toHaveLength(1);
    expect(states[0]?.user.login).toBe("otto-bot");
    const state = parseState(states[0]!.body);
    expect(state?.ok && state.state).toMatchObject({
      fix_attempts: 1,
      fix_sha: log[0]?.sha,
      fix_base_sha: pr.head.sha,
      handled_heads: [pr.head.sha],
    });
    // Claimed before the work (posted), released with the real counts: one comment, edited once (the
    // claim raised before the push is not written again when the scripted model spent nothing).
    expect(f.gh.state.edits).toEqual([states[0]?.id]);
    const work = modelWork();
    expect(work).toBeGreaterThan(0);

    // The same event delivered again (a re-run of the job) on a new runner: nothing happens.
    const atSecond = mark(f);
    const second = await job(ws, f, "workflow_run", event);
    // The re-delivered event is the attempt: a second fix started if a model worked on it again.
    recordFigure({ name: "ci: a failure event delivered again, second fixes started", tried: 1, through: modelWork() > work ? 1 : 0 });
    expect(second.exitCode, second.stderr).toBe(0);
    // A duplicate costs reads only (the PR, its comments: the state) and the command's own turn, no work of a model.
    const duplicate = spent(f, atSecond);
    console.log("ci cost: the same event again", duplicate);
    expect(duplicate.writes).toBe(0);
    expect(second.stdout).toContain("otto ci: nothing to do: otto already worked on the failure of");
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(log[0]?.sha);
    expect(modelWork()).toBe(work);
    expect(stateComments(f)).toHaveLength(1);
    expect(f.gh.calls.filter((c) => c.method === "POST" && c.path.endsWith("/issues/1/comments"))).toHaveLength(1);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a fix job killed while its fix session runs or right after its push, three times over new red heads: the fourth counts their claims and stops at max_fix_attempts (3) with no model call", async () => {
    // Three kills cover both moments (in the fix session, after the push) and a count past one of each.
    const { f, pr, ws } = await setup({ maxFixAttempts: 3 });
    // Odd jobs hang in their fix session; even ones fix, pass the review and push.
    let mode: "hang" | "fix" = "hang";
    const fix = fixer(ws, FIXED);
    e2e.model.script(analysis(ws, summary("code: add() subtracts")), fixReview("APPROVE"), {
      label: "fix (hangs or writes)",
      times: Infinity,
      match: isFix,
      reply: (req) => (mode === "hang" ? hang() : typeof fix.reply === "function" ? fix.reply(req) : fix.reply),
    });
    // The PR's bare remote holds otto's push at post-receive (the ref already moved) while ARMED
    // exists, so the job is killed after its push landed and before it could write anything else.
    const hooks = fs.mkdtempSync(path.join(os.tmpdir(), "otto-ci-push-"));
    const [armed, pushed, go] = ["armed", "pushed", "go"].map((n) => path.join(hooks, n)) as [string, string, string];
    const hook = path.join(ws.repo.remote, "hooks", "post-receive");
    fs.writeFileSync(
      hook,
      `#!/bin/sh\n[ -e '${armed}' ] || exit 0\ntouch '${pushed}'\ni=0\nwhile [ ! -e '${go}' ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done\n`,
      { mode: 0o755 },
    );
    const fixSessions = () => e2e.model.requests.filter((r) => isFix(r) && !followUp(r));
    try {
      for (let i = 1; i <= 3; i += 1) {
        const afterPush = i % 2 === 0;
        mode = afterPush ? "fix" : "hang";
        if (afterPush) {
          // A new red head the fix can change: someone breaks add() again on top of the branch.
          pushBehindOttosBack(ws, "src/math.js", `${BROKEN}// red again (${i})\n`);
          pr.head.sha = (await ws.repo.remoteLog(BRANCH))[0]!.sha;
        } else pr.head.sha = String(i).repeat(40);
        f.gh.state.setChecks(pr, [{ name: "build" }, { name: "unit", conclusion: "failure", log: JOB_LOG }]);
        const seen = fixSessions().length;
        const kill = new AbortController();
        if (afterPush) {
          for (const file of [pushed, go]) fs.rmSync(file, { force: true });
          fs.writeFileSync(armed, "");
          // The runner kills the job (a cancelled run, Azure's superseded build) once its push is in.
          void until(`job ${i}'s push`, () => fs.existsSync(pushed), 150_000).then(
            () => kill.abort(),
            () => kill.abort(),
          );
        } else {
          // The runner kills the job (timeout-minutes, a cancelled run) while its fix session runs.
          void e2e.model
            .waitForRequest((r) => isFix(r) && !followUp(r) && r.seq > (fixSessions()[seen - 1]?.seq ?? -1), 150_000)
            .then(
              () => kill.abort(),
              () => kill.abort(),
            );
        }
        const killed = await job(ws, f, "workflow_run", workflowRun(f, pr.head.sha), {}, kill.signal);
        fs.rmSync(armed, { force: true });
        fs.writeFileSync(go, "");
        expect(killed.exitCode, `job ${i}`).toBeUndefined();
        expect(fixSessions(), `job ${i}`).toHaveLength(i);
        // The even jobs' fix landed: the remote moved past the red head.
        if (afterPush) expect((await ws.repo.remoteLog(BRANCH))[1]?.sha, `job ${i}`).toBe(pr.head.sha);
      }
    } finally {
      fs.writeFileSync(go, "");
      fs.rmSync(hook, { force: true });
      fs.rmSync(hooks, { recursive: true, force: true });
    }
    const work = modelWork();
    pr.head.sha = "4".repeat(40);
    f.gh.state.setChecks(pr, [{ name: "build" }, { name: "unit", conclusion: "failure", log: JOB_LOG }]);
    const fourth = await job(ws, f, "workflow_run", workflowRun(f, pr.head.sha));
    recordFigure({
      name: "ci: fix sessions after three killed jobs with max_fix_attempts 3",
      tried: 1,
      through: modelWork() > work ? 1 : 0,
    });
    expect(fourth.exitCode, fourth.stderr).toBe(0);
    expect(modelWork()).toBe(work);
    const state = parseState(stateComments(f)[0]!.body);
    expect(state?.ok).toBe(true);
    if (!state?.ok) return;
    // Each killed job's claim was counted once: three attempts, and at most the day's cap in expected spend.
    expect(state.state.fix_attempts).toBe(3);
    expect(state.state.gave_up ?? state.state.cap_hold).toBeTruthy();
    // Three claims of a third of the $5 cap each; sums are kept to the micro-dollar (5.000001).
    expect(state.state.spend?.today.usd ?? 0).toBeCloseTo(5, 5);
    expect(state.state.claims.filter((c) => !c.released)).toHaveLength(3);
    expect(state.state.claims.every((c) => c.counted || c.released)).toBe(true);
    // Four OpenCode jobs, one of them a full fix: on a loaded 2-core machine each can take a minute.
  }, 900_000);

  it("a failure event and a comment event pending in one group: the workflow keeps both, and the comment's job alone also fixes the red head", async () => {
    const { f, pr, ws, before } = await setup();
    // otto has met this PR before (its state comment), so the question is its to answer.
    f.gh.state.addComment(pr, renderState(CiState.parse({ updated: "2026-01-01T00:00:00.000Z" }), []), "otto-bot");
    const question = f.gh.state.addComment(pr, "Why does add() live in math.js?", "maintainer");
    const ask = f.gh.state.addComment(pr, "/otto answer", "maintainer");
    e2e.model.script(
      {
        label: "answer",
        match: { lastUser: "Why does add() live in math.js?", lastRole: "user" },
        reply: text(
          `Done.\n\nBEGIN_JSON\n${JSON.stringify({ decision: "BY_DESIGN", reply: "math.js holds every arithmetic helper.", fix_description: "" })}\nEND_JSON`,
        ),
      },
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts")),
      fixer(ws, FIXED),
    );
    const failure = { name: "workflow_run", payload: workflowRun(f, pr.head.sha) };
    const comment = {
      name: "issue_comment",
      payload: issueComment(f, { id: ask.id, body: ask.body, user: "maintainer", association: "COLLABORATOR", created: ask.created_at }),
    };
    // Both wait while an earlier job of the PR runs: the workflow's queue: max keeps both.
    expect(pendingJobs([failure, comment])).toEqual([failure, comment]);
    // GitHub's default would keep only the newer: that job is the one run here, and it must do both.
    const [kept] = pendingJobs([failure, comment], {});
    expect(kept).toBe(comment);
    const run = await job(ws, f, kept!.name, kept!.payload);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("### comments");
    expect(run.stdout).toContain("(pushed)");
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).not.toBe(before);
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    const replies = f.gh.state.comments.filter(
      (c) => c.user.login === "otto-bot" && c.body.includes("math.js holds every arithmetic helper."),
    );
    expect(replies).toHaveLength(1);
    const state = parseState(stateComments(f)[0]!.body);
    expect(state?.ok && state.state.handled_heads).toEqual([pr.head.sha]);
    expect(state?.ok && state.state.seen_comment_ids).toEqual(expect.arrayContaining([`issue-${question.id}`, `issue-${ask.id}`]));
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a machine account's reply starts no job (the workflow's if: skips OTTO_BOT_LOGIN), and a job started for it anyway does nothing", async () => {
    const { f, pr, ws, before } = await setup({ checkout: "branch" });
    // Green checks and a reviewer's question otto answered before: the reply is otto's own (the machine account's).
    f.gh.state.setChecks(pr, [{ name: "build" }, { name: "unit" }]);
    f.gh.state.addComment(pr, renderState(CiState.parse({ updated: "2026-01-01T00:00:00.000Z" }), []), "otto-bot");
    const question = f.gh.state.addReviewComment(pr, { path: "src/math.js", line: 1, body: "Why subtract?", author: "maintainer" });
    const reply = f.gh.state.addReviewComment(pr, {
      path: "src/math.js",
      line: 1,
      body: "It adds now.",
      author: "otto-bot",
      inReplyTo: question.id,
    });
    const payload = rewrite(
      example("pull_request_review_comment", (e) => e.action === "created"),
      { apiUrl: f.gh.apiUrl, repo: "octo/app" },
    );
    const c = payload.comment as Record<string, unknown>;
    Object.assign(c, {
      id: reply.id,
      body: reply.body,
      author_association: "COLLABORATOR",
      created_at: reply.created_at,
      in_reply_to_id: question.id,
    });
    (c.user as Record<string, unknown>).login = "otto-bot";
    Object.assign(payload.sender as Record<string, unknown>, { login: "otto-bot", type: "User" });
    const prPayload = payload.pull_request as Record<string, unknown>;
    prPayload.number = 1;
    ((prPayload.head as Record<string, unknown>).repo as Record<string, unknown>).full_name = "octo/app";

    // The workflow as a machine account's token sets it up: OTTO_GITHUB_TOKEN and the variable OTTO_BOT_LOGIN.
    const vars = { OTTO_BOT_LOGIN: "otto-bot" };
    const secrets = { OTTO_GITHUB_TOKEN: f.env.GITHUB_TOKEN! };
    const runs = jobRuns("pull_request_review_comment", payload, "octo/app", vars);
    recordFigure({ name: "ci: a machine account's own reply, jobs started (the workflow's if:)", tried: 1, through: runs ? 1 : 0 });
    expect(runs).toBe(false);
    // The same comment by a person does start it (the condition can pass).
    expect(jobRuns("pull_request_review_comment", { ...payload, sender: { login: "maintainer", type: "User" } }, "octo/app", vars)).toBe(
      true,
    );

    // Started anyway (a workflow without the variable, or edited): otto skips its own comment in code.
    const env = {
      OTTO_GITHUB_BOT_LOGIN: stepEnv("OTTO_GITHUB_BOT_LOGIN", { vars, secrets }),
      OTTO_GITHUB_TOKEN_KIND: stepEnv("OTTO_GITHUB_TOKEN_KIND", { vars, secrets }),
    };
    expect(env).toEqual({ OTTO_GITHUB_BOT_LOGIN: "otto-bot", OTTO_GITHUB_TOKEN_KIND: "machine" });
    const at = mark(f);
    const run = await job(ws, f, "pull_request_review_comment", payload, env);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("otto ci: nothing to do: the comment is otto's own (otto-bot).");
    // Reads only: GraphQL queries are POSTs too, but no mutation and no REST write.
    const writes = f.gh.calls
      .slice(at.calls)
      .filter(
        (call) =>
          call.method !== "GET" && !(call.path.endsWith("/graphql") && /^\s*query /.test(String((call.body as { query?: unknown }).query))),
      );
    expect(writes).toEqual([]);
    expect(e2e.model.turns().filter((r) => r.lastRole !== "tool" && !r.lastUser.includes("<args>"))).toEqual([]);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a flake an earlier job judged on this PR is known from otto's state comment alone: no model call, a re-run, the verdict added to the state", async () => {
    const { f, pr, ws, before } = await setup();
    const fp = fingerprintLog(trimLog(JOB_LOG))!;
    // An earlier job (another runner, whose data is gone) saw this failure pass on a re-run.
    const earlier = { fingerprint: fp.id, check: "unit", verdict: "rerun" as const, head: "3".repeat(40), at: "2026-02-06T09:00:00.000Z" };
    f.gh.state.addComment(pr, renderState(CiState.parse({ handled_heads: ["3".repeat(40)], flakes: [earlier] }), []), "otto-bot");
    const result = await job(ws, f, "workflow_run", workflowRun(f, pr.head.sha));
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("### fix: github-octo-app-1 (flaky)");
    expect(result.stdout).toContain("unit: a known flaky failure (in the flake ledger 1 time(s))");
    expect(modelWork()).toBe(0);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    const unit = f.gh.state.checkRuns.find((r) => r.name === "unit" && r.head_sha === pr.head.sha)!;
    expect(f.gh.state.rerunRuns).toEqual([unit.run_id]);
    const states = stateComments(f);
    expect(states).toHaveLength(1);
    const state = parseState(states[0]!.body);
    expect(state?.ok && state.state.flakes.map((x) => [x.fingerprint, x.check, x.verdict, x.head])).toEqual([
      [fp.id, "unit", "rerun", "3".repeat(40)],
      [fp.id, "unit", "known", pr.head.sha],
    ]);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a trusted '/otto fix' comment fixes the PR's failing checks; an untrusted one does nothing and posts nothing", async () => {
    const { f, pr, ws, before } = await setup({ checkout: "branch" });
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixer(ws, FIXED));

    f.gh.state.stranger("drive-by");
    const untrusted = f.gh.state.addComment(pr, "/otto fix", "drive-by");
    const ignored = await job(
      ws,
      f,
      "issue_comment",
      issueComment(f, { id: untrusted.id, body: untrusted.body, user: "drive-by", association: "NONE", created: untrusted.created_at }),
    );
    // A fix started when a model worked on it.
    recordFigure({ name: "ci: /otto fix by an untrusted author, fixes started", tried: 1, through: modelWork() > 0 ? 1 : 0 });
    expect(ignored.exitCode, ignored.stderr).toBe(0);
    expect(ignored.stdout).toContain("otto ci: nothing to do: `/otto fix` by drive-by is ignored: may not change the repository.");
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    expect(modelWork()).toBe(0);
    expect(f.gh.state.comments.map((c) => c.user.login)).toEqual(["drive-by"]);
    expect(f.gh.calls.filter((c) => c.method !== "GET")).toEqual([]);

    const trusted = f.gh.state.addComment(pr, "/otto fix\nThe unit tests fail.", "maintainer");
    const fixed = await job(
      ws,
      f,
      "issue_comment",
      issueComment(f, { id: trusted.id, body: trusted.body, user: "maintainer", association: "COLLABORATOR", created: trusted.created_at }),
    );
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain("`/otto fix` by maintainer (trusted: may change the repository)");
    expect(fixed.stdout).toContain("(pushed)");
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log[1]?.sha).toBe(before);
    expect(await ws.repo.remoteFile("src/math.js", BRANCH)).toBe(FIXED);
    // The command is handled: its id is in the state, so the comment flow never answers it as a review comment.
    const state = parseState(stateComments(f)[0]!.body);
    expect(state?.ok && state.state.seen_comment_ids).toContain(`issue-${trusted.id}`);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("fork PRs: a failed run of a fork's branch and a comment on a fork PR do nothing", async () => {
    const { f, ws, before } = await setup();
    const fork = f.gh.state.addPr({ number: 2, title: "From a fork", branch: "patch-1", fork: { owner: "stranger", repo: "app" } });
    f.gh.state.setChecks(fork, [{ name: "unit", conclusion: "failure", log: JOB_LOG }]);

    const run = await job(ws, f, "workflow_run", workflowRun(f, fork.head.sha, "stranger/app"));
    // Each event that got a model to work on the fork's code got through (the file's figure adds up both events).
    const forkEvents = "ci: events of a fork's PR (a failed run, a trusted comment), fixes started";
    const afterRun = modelWork();
    recordFigure({ name: forkEvents, tried: 1, through: afterRun > 0 ? 1 : 0 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("otto ci: nothing to do: workflow_run.completed: the run is of a fork's branch (stranger/app)");

    const c = f.gh.state.addComment(fork, "/otto fix", "maintainer");
    const commented = await job(
      ws,
      f,
      "issue_comment",
      issueComment(f, { id: c.id, body: c.body, user: "maintainer", association: "COLLABORATOR", created: c.created_at }, 2),
    );
    recordFigure({ name: forkEvents, tried: 1, through: modelWork() > afterRun ? 1 : 0 });
    expect(commented.exitCode, commented.stderr).toBe(0);
    expect(commented.stdout).toContain("otto ci: nothing to do: octo/app#2 is from a fork (stranger/app)");
    expect(modelWork()).toBe(0);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
    expect(f.gh.calls.filter((call) => call.method !== "GET")).toEqual([]);
  });

  it("a reviewer's comment is answered, and the job fails (exit code) when it has no token", async () => {
    const { f, pr, ws } = await setup({ checkout: "branch" });
    // The checks are green: the job answers and has no red head to fix.
    f.gh.state.setChecks(pr, [{ name: "build" }, { name: "unit" }]);
    const question = f.gh.state.addComment(pr, "Why does add() live in math.js?", "maintainer");
    e2e.model.script({
      label: "answer",
      match: { lastUser: "Why does add() live in math.js?", lastRole: "user" },
      reply: text(
        `Done.\n\nBEGIN_JSON\n${JSON.stringify({ decision: "BY_DESIGN", reply: "math.js holds every arithmetic helper.", fix_description: "" })}\nEND_JSON`,
      ),
    });
    const payload = issueComment(f, {
      id: question.id,
      body: question.body,
      user: "maintainer",
      association: "COLLABORATOR",
      created: question.created_at,
    });

    const atAnswer = mark(f);
    const answered = await job(ws, f, "issue_comment", payload);
    expect(answered.exitCode, answered.stderr).toBe(0);
    console.log("ci cost: a reviewer's comment, answered", spent(f, atAnswer));
    expect(answered.stdout).toContain("### comments");
    expect(answered.stdout).toMatch(/1 answered/);
    const replies = f.gh.state.comments.filter(
      (c) => c.user.login === "otto-bot" && c.body.includes("math.js holds every arithmetic helper."),
    );
    expect(replies).toHaveLength(1);
    const state = parseState(stateComments(f)[0]!.body);
    expect(state?.ok && state.state.seen_comment_ids).toContain(`issue-${question.id}`);

    const broken = await job(ws, f, "issue_comment", payload, { GITHUB_TOKEN: "" });
    expect(broken.exitCode).not.toBe(0);
    expect(broken.stdout + broken.stderr).toContain("No GitHub token: GITHUB_TOKEN is not set in the otto job");
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it('on a runner without bubblewrap, the default sandbox "auto" fails the job before it reads the PR or asks a model', async () => {
    const { f, pr, ws, before } = await setup();
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "otto-ci-nobwrap-"));
    try {
      const at = mark(f);
      const refused = await job(ws, f, "workflow_run", workflowRun(f, pr.head.sha), { PATH: pathWithout(scratch, ["bwrap"]) });
      expect(refused.exitCode).toBe(1);
      expect(refused.stdout + refused.stderr).toContain(
        "otto's CI job (/otto-pr ci) runs code a PR or a model wrote with nobody watching, and no sandbox can run here: bubblewrap (bwrap) is not installed.",
      );
      expect(f.gh.calls.slice(at.calls)).toEqual([]);
      expect(modelWork()).toBe(0);
      expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(before);
      expect(await ws.repo.git(["rev-parse", "--abbrev-ref", "HEAD"])).toBe("main");
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe("/otto-pr ci with the job's own token, as GitHub gives it (no GET /user, only the workflow's permissions)", () => {
  const e2e = useE2E();
  const BOT = "github-actions[bot]";
  const forges = useForges({ github: { installation: { bot: BOT, permissions: jobPermissions } } });

  it("a failed run is fixed once, the same event again does nothing, the fix's own failure stops at max_fix_attempts; an outsider's /otto fix starts no job", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add math", branch: BRANCH });
    f.gh.state.setChecks(pr, [{ name: "build" }, { name: "unit", conclusion: "failure", log: JOB_LOG }]);
    const ws = await e2e.workspace({
      remote: true,
      userOttoConfig: {
        models: { primary: "mock/m1" },
        pr: { request_timeout: "2s", max_fix_attempts: 1, providers: { github: { pause_writes: false } } },
      },
      env: { GITHUB_TOKEN: f.env.GITHUB_TOKEN! },
    });
    await cloneOfPr(ws);
    await ws.repo.git(["checkout", "-q", "main"]);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });
    const before = (await ws.repo.remoteLog(BRANCH))[0]?.sha;
    // The login otto's comments show, as the workflow computes it for the job's own token (no App, no OTTO_GITHUB_TOKEN).
    const botLogin = stepEnv("OTTO_GITHUB_BOT_LOGIN", {});
    expect(botLogin).toBe(BOT);

    const job = async (name: string, payload: Payload) => {
      // The runner starts the job only when its `if:` holds for the event.
      expect(jobRuns(name, payload, "octo/app")).toBe(true);
      const { file, dir } = eventFile(payload);
      try {
        const env = {
          ...freshRunner(ws.root),
          GITHUB_ACTIONS: "true",
          GITHUB_EVENT_NAME: name,
          GITHUB_EVENT_PATH: file,
          GITHUB_REPOSITORY: "octo/app",
          GITHUB_API_URL: f.gh.apiUrl,
          GITHUB_SERVER_URL: "https://github.com",
          OTTO_GITHUB_BOT_LOGIN: botLogin,
        };
        return await e2e.run(ws, ["run", "--command", "otto-pr", "--", "ci"], { env, timeoutMs: 150_000 });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    };
    const failedRun = (sha: string): Payload => {
      const p = rewrite(
        example(
          "workflow_run",
          (e) => e.action === "completed" && (e.workflow_run as { pull_requests: unknown[] }).pull_requests.length > 0,
        ),
        { apiUrl: f.gh.apiUrl, repo: "octo/app" },
      );
      const run = p.workflow_run as Record<string, unknown>;
      Object.assign(run, { conclusion: "failure", head_sha: sha, head_branch: BRANCH });
      (run.head_repository as Record<string, unknown>).full_name = "octo/app";
      run.pull_requests = [{ number: 1, head: { ref: BRANCH, sha, repo: { full_name: "octo/app" } } }];
      return p;
    };
    const modelWork = () => e2e.model.requests.filter((r) => isAnalysis(r) || isFix(r)).length;
    const states = () => f.gh.state.comments.filter((c) => c.body.includes("<!-- otto:state v1 "));

    // An outsider's `/otto fix` (GitHub's own example payload, author_association NONE) starts no job at all.
    const outsider = rewrite(
      example("issue_comment", (e) => e.action === "created"),
      { apiUrl: f.gh.apiUrl, repo: "octo/app" },
    );
    (outsider.issue as Record<string, unknown>).pull_request = { url: `${f.gh.apiUrl}/repos/octo/app/pulls/1` };
    Object.assign(outsider.comment as Record<string, unknown>, { body: "/otto fix", author_association: "NONE" });
    const outsiderRuns = jobRuns("issue_comment", outsider, "octo/app");
    recordFigure({ name: "ci: /otto fix by an outsider, jobs started (the workflow's if:)", tried: 1, through: outsiderRuns ? 1 : 0 });
    expect(outsiderRuns).toBe(false);
    // The same comment by a collaborator does start it (the condition can pass).
    (outsider.comment as Record<string, unknown>).author_association = "COLLABORATOR";
    expect(jobRuns("issue_comment", outsider, "octo/app")).toBe(true);

    // 1. The failure is fixed, and the state comment is the bot's, read back as otto's own.
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixer(ws, FIXED));
    const first = await job("workflow_run", failedRun(pr.head.sha));
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toContain("(pushed)");
    const fixed = (await ws.repo.remoteLog(BRANCH))[0]?.sha;
    expect(fixed).not.toBe(before);
    // The fake refused /user, as GitHub does for this token; every other call was within the permissions.
    expect(f.gh.calls.filter((c) => c.path.endsWith("/user")).map((c) => c.status)).toEqual([403]);
    expect(f.gh.calls.filter((c) => c.status === 403 && !c.path.endsWith("/user"))).toEqual([]);
    expect(states().map((c) => c.user.login)).toEqual([BOT]);
    const work = modelWork();

    // 2. The same event again: the state comment is trusted, nothing happens.
    const again = await job("workflow_run", failedRun(pr.head.sha));
    recordFigure({
      name: "ci (job token): a failure event delivered again, second fixes started",
      tried: 1,
      through: modelWork() > work ? 1 : 0,
    });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain("otto ci: nothing to do: otto already worked on the failure of");
    expect(modelWork()).toBe(work);

    // 3. The fix's own head fails: max_fix_attempts (1) is reached, otto gives up without a model.
    pr.head.sha = fixed!;
    f.gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: JOB_LOG }]);
    const third = await job("workflow_run", failedRun(fixed!));
    recordFigure({ name: "ci (job token): fixes started past max_fix_attempts", tried: 1, through: modelWork() > work ? 1 : 0 });
    expect(third.exitCode, third.stderr).toBe(0);
    expect(modelWork()).toBe(work);
    expect((await ws.repo.remoteLog(BRANCH))[0]?.sha).toBe(fixed);
    const state = parseState(states()[0]!.body);
    expect(state?.ok && state.state.gave_up).toBeTruthy();
    // One state comment throughout, edited in place.
    expect(states()).toHaveLength(1);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
