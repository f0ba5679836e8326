import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { error, slashCommand, text, useE2E, type RecordedCall, type Workspace } from "../../support/index.ts";
import { ottoCommand, useForges } from "../pr/forges.ts";

/*
 * /pr-review one-shot through real OpenCode: the PR's branch lives in a real bare remote, the
 * forge is the fake GitHub or Azure DevOps, the reviewer is the scripted model answering the
 * pr-review envelope. What is checked is what the forge received and what is left on disk.
 */

const PLANTED = "ghp_plantedSecretToken0123456789abcdefgh";
const AWS_KEY = "AKIAIOSFODNN7EXAMPLE";
const MAIN_AUTH = Array.from({ length: 30 }, (_, i) => `export const v${i + 1} = ${i + 1};`).join("\n") + "\n";

/**
 * The workspace's project with a PR branch `feature/auth` pushed to its bare remote: line 5 of
 * src/auth.ts changed (hunk: new lines 2-8) and src/util.ts added (lines 1-3). The clone's origin
 * is spelled like the hosted repository (`hostedUrl`) and fetches from the bare remote.
 */
async function prBranch(ws: Workspace, hostedUrl: string): Promise<void> {
  const git = (args: string[]) => ws.repo.git(args);
  await git(["checkout", "-q", "-b", "feature/auth"]);
  ws.writeFiles({
    "src/auth.ts": MAIN_AUTH.replace("export const v5 = 5;", "export const v5 = await fetch(url);"),
    "src/util.ts": "export function pick() {\n  return 1;\n}\n",
  });
  await git(["add", "-A"]);
  await git(["-c", "user.name=dev", "-c", "user.email=dev@example.invalid", "commit", "-q", "-m", "Add auth"]);
  await git(["push", "-q", "origin", "feature/auth"]);
  await git(["checkout", "-q", "main"]);
  const bare = ws.repo.remote;
  await git(["remote", "set-url", "origin", hostedUrl]);
  await git(["config", `url.${bare}.insteadOf`, hostedUrl]);
}

const ENVELOPE = {
  summary: "Adds a fetch to auth; the call is unchecked.",
  comments: [
    { file: "src/auth.ts", line: 5, severity: "error", title: "Unchecked fetch", body: "The response status is never checked." },
    { file: "src/auth.ts", line: 20, severity: "warning", title: "Far from the change", body: "v20 is exported twice elsewhere." },
    {
      file: "./src/util.ts",
      line: 2,
      severity: "suggestion",
      title: "Magic number",
      body: `Name the constant; and never hard-code ${PLANTED} or ${AWS_KEY}.`,
    },
  ],
};

const reviewer = (model: string) => ({
  label: "reviewer",
  match: { model, lastUser: "You are reviewing a pull request" },
  reply: text(`I ran git diff and read both files.\nBEGIN_JSON\n${JSON.stringify(ENVELOPE)}\nEND_JSON`),
});

const posts = (calls: RecordedCall[], suffix: string) => calls.filter((c) => c.method === "POST" && c.path.endsWith(suffix));

function worktreeOf(stdout: string): string {
  const dir = /temporary worktree of origin\/feature\/auth in (\S+)/.exec(stdout)?.[1];
  if (!dir) throw new Error(`no temporary worktree in the output:\n${stdout}`);
  return dir;
}

async function worktrees(ws: Workspace): Promise<string[]> {
  return (await ws.repo.git(["worktree", "list", "--porcelain"])).split("\n").filter((l) => l.startsWith("worktree "));
}

describe("/pr-review one-shot through real OpenCode", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("GitHub: reviews in a temporary worktree, saves a draft, posts approved comments as one review, out-of-diff ones in the summary, secrets redacted", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 5, title: "Add auth", branch: "feature/auth" });
    pr.body = "Adds a fetch-based login.";
    // The fake refuses review comments outside these lines, as GitHub does.
    pr.diffLines = { "src/auth.ts": [2, 3, 4, 5, 6, 7, 8], "src/util.ts": [1, 2, 3] };
    f.gh.state.addReviewComment(pr, { path: "src/auth.ts", line: 6, body: "Is v6 still used?", author: "ana" });
    const ws = await e2e.workspace({
      remote: true,
      files: { "src/auth.ts": MAIN_AUTH },
      userOttoConfig: f.ottoConfig({ models: { reviewers: ["mock/m2"] } }),
      env: f.env,
    });
    await prBranch(ws, "https://github.com/octo/app.git");
    const [call, echo] = slashCommand("otto_pr_review");
    e2e.model.script({ ...call!, times: Infinity }, { ...echo!, times: Infinity }, reviewer("m2"));

    const review = await e2e.run(ws, [
      "run",
      "--command",
      "pr-review",
      "--",
      "https://github.com/octo/app/pull/5",
      "--focus",
      "error handling",
    ]);
    expect(review.exitCode, review.stderr).toBe(0);
    expect(review.stdout).toContain("Fetching PR #5... done: Add auth (feature/auth → main, octo/app)");
    expect(review.stdout).toContain("Reviewing changes (2 files, git diff origin/main...HEAD) with mock/m2");
    expect(review.stdout).toContain("Generated 3 review comments (1 outside the diff: posted in the review's summary).");
    expect(review.stdout).toContain("| 1 | src/auth.ts | 5 | error | Unchecked fetch: The response status is never checked. |");
    expect(review.stdout).toContain("| 2 | src/auth.ts | 20 (summary) | warning |");
    expect(review.stdout).toContain("| 3 | src/util.ts | 2 | suggestion |");
    expect(review.stdout).not.toContain(PLANTED);

    // The reviewer ran with the description and focus, in the temporary worktree, which is gone.
    const dir = worktreeOf(review.stdout);
    const request = e2e.model.requests.find((r) => r.answeredBy === "reviewer");
    expect(request?.lastUser).toContain("Adds a fetch-based login.");
    expect(request?.lastUser).toContain("error handling");
    expect(request?.lastUser).toContain("git diff origin/main...HEAD");
    expect(request?.lastUser).toContain("- src/auth.ts:6 (ana): Is v6 still used?");
    expect(request?.system).toContain(dir);
    expect(fs.existsSync(dir)).toBe(false);
    expect(await worktrees(ws)).toHaveLength(1);
    expect(await ws.repo.git(["branch", "--show-current"])).toBe("main");
    // Nothing posted yet, the PR not tracked; the draft is the only thing kept.
    expect(posts(f.gh.calls, "/reviews")).toEqual([]);
    expect(fs.existsSync(path.join(ws.dirs.dataHome, "otto", "prs"))).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(ws.dirs.dataHome, "otto", "pr-review", "github-octo-app-5.json"), "utf8"))).toMatchObject({
      pr: { number: 5 },
      comments: [
        { id: 1, inDiff: true },
        { id: 2, inDiff: false },
        { id: 3, file: "src/util.ts", inDiff: true },
      ],
    });

    // The two posts in one served OpenCode (the review above ran headless): one OpenCode start, not two.
    const { client } = await e2e.serve(ws);
    const post = await ottoCommand(client, "pr-review", "post 1,3");
    expect(post).toContain("Posted 2 inline comments on PR #5 as one review: https://github.com/octo/app/pull/5");
    const [first, ...others] = posts(f.gh.calls, "/pulls/5/reviews");
    expect(others).toEqual([]);
    expect(first?.status).toBe(200);
    const sent = first?.body as {
      event: string;
      commit_id: string;
      body: string;
      comments: Array<{ path: string; line: number; side: string; body: string }>;
    };
    expect(sent.event).toBe("COMMENT");
    expect(sent.commit_id).toBe(pr.head.sha);
    expect(sent.comments.map((c) => [c.path, c.line, c.side])).toEqual([
      ["src/auth.ts", 5, "RIGHT"],
      ["src/util.ts", 2, "RIGHT"],
    ]);
    expect(sent.comments[0]?.body).toContain("<!-- otto -->");
    expect(sent.comments[1]?.body).toContain("[REDACTED]");
    expect(JSON.stringify(sent)).not.toContain(PLANTED);
    expect(JSON.stringify(sent)).not.toContain(AWS_KEY);
    expect(sent.body).not.toContain("Far from the change");
    expect(f.gh.state.reviewComments.filter((c) => c.review_id === f.gh.state.reviews[0]?.id).map((c) => c.path)).toEqual([
      "src/auth.ts",
      "src/util.ts",
    ]);

    // The out-of-diff comment goes into a review's body, with the summary; posted ids are not repeated.
    const rest = await ottoCommand(client, "pr-review", "post all --summary");
    expect(rest).toContain("Posted 0 inline comments and 1 in the summary (outside the diff) on PR #5 as one review");
    expect(rest).toContain("Skipped 1, 3: posted already.");
    const second = posts(f.gh.calls, "/pulls/5/reviews")[1]?.body as { body: string; comments: unknown[] };
    expect(second.comments).toEqual([]);
    expect(second.body).toContain("`src/auth.ts:20` (warning) **Far from the change**: v20 is exported twice elsewhere.");
    expect(second.body).toContain("Adds a fetch to auth; the call is unchecked.");
    expect(posts(f.gh.calls, "/reviews")).toHaveLength(2);
    expect(e2e.model.pending().map((p) => p.label)).toEqual([]);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("Azure DevOps with --post all: one thread per inline comment and a summary thread holding the out-of-diff one", async () => {
    const f = await forges();
    f.ado.state.addPr({ id: 30, title: "Add auth", branch: "feature/auth" });
    const ws = await e2e.workspace({ remote: true, files: { "src/auth.ts": MAIN_AUTH }, userOttoConfig: f.ottoConfig(), env: f.env });
    await prBranch(ws, `${f.ado.baseUrl}/contoso/payments/_git/app`);
    const [call, echo] = slashCommand("otto_pr_review");
    // No reviewer model configured: the session's model (mock/m1) reviews.
    e2e.model.script({ ...call!, times: Infinity }, { ...echo!, times: Infinity }, reviewer("m1"));

    // The fakes share a host, so the PR is named by its dev.azure.com URL (otto reaches the fake through base_url).
    const run = await e2e.run(ws, [
      "run",
      "--command",
      "pr-review",
      "--",
      "https://dev.azure.com/contoso/payments/_git/app/pullrequest/30",
      "--post",
      "all",
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      "Posted 2 inline comments and 1 in the summary (outside the diff) on PR #30 (one thread per comment, plus a summary thread)",
    );
    expect(fs.existsSync(worktreeOf(run.stdout))).toBe(false);
    const threads = f.ado.state.threads.filter((t) => t.prId === 30);
    expect(threads.map((t) => [t.filePath, t.line, t.status])).toEqual([
      ["/src/auth.ts", 5, "active"],
      ["/src/util.ts", 2, "active"],
      [undefined, undefined, "closed"],
    ]);
    expect(threads[2]?.comments[0]?.content).toContain("`src/auth.ts:20` (warning)");
    expect(threads[2]?.comments[0]?.content).toContain("Adds a fetch to auth");
    const bodies = posts(f.ado.calls, "/threads").map((c) => JSON.stringify(c.body));
    expect(bodies).toHaveLength(3);
    for (const body of bodies) expect(body).not.toContain(PLANTED);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("GitHub PR from a fork: reviewed from refs/pull/<n>/head in a temporary worktree; nothing stays in the clone", async () => {
    const f = await forges();
    f.gh.state.addPr({ number: 8, title: "Add auth", branch: "patch-1", fork: { owner: "someone", repo: "app" } });
    const ws = await e2e.workspace({
      remote: true,
      files: { "src/auth.ts": MAIN_AUTH },
      userOttoConfig: f.ottoConfig({ models: { reviewers: ["mock/m2"] } }),
      env: f.env,
    });
    await prBranch(ws, "https://github.com/octo/app.git");
    // As on GitHub: the fork's branch is not on the repository, its head is, as refs/pull/8/head.
    await ws.repo.git(["push", "-q", "origin", "feature/auth:refs/pull/8/head", ":refs/heads/feature/auth"]);
    await ws.repo.git(["branch", "-q", "-D", "feature/auth"]);
    const [call, echo] = slashCommand("otto_pr_review");
    e2e.model.script({ ...call!, times: Infinity }, { ...echo!, times: Infinity }, reviewer("m2"));

    const review = await e2e.run(ws, ["run", "--command", "pr-review", "--", "https://github.com/octo/app/pull/8"]);
    expect(review.exitCode, review.stderr).toBe(0);
    expect(review.stdout).toContain("refs/pull/8/head, from someone/app");
    expect(review.stdout).toContain("Reviewing changes (2 files, git diff origin/main...HEAD) with mock/m2");
    expect(review.stdout).toContain("| 1 | src/auth.ts | 5 | error | Unchecked fetch: The response status is never checked. |");
    const dir = /from someone\/app\) in (\S+)/.exec(review.stdout)?.[1] ?? "";
    expect(e2e.model.requests.find((r) => r.answeredBy === "reviewer")?.system).toContain(dir);
    expect(fs.existsSync(dir)).toBe(false);
    expect(await worktrees(ws)).toHaveLength(1);
    expect(await ws.repo.git(["for-each-ref", "refs/otto"])).toBe("");
    expect(await ws.repo.git(["branch", "--show-current"])).toBe("main");
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("removes the temporary worktree when the review fails, and posts nothing", async () => {
    const f = await forges();
    f.gh.state.addPr({ number: 6, branch: "feature/auth" });
    const ws = await e2e.workspace({
      remote: true,
      files: { "src/auth.ts": MAIN_AUTH },
      userOttoConfig: f.ottoConfig({ models: { reviewers: ["mock/m2"] } }),
      env: f.env,
    });
    await prBranch(ws, "git@github.com:octo/app.git");
    const [call, echo] = slashCommand("otto_pr_review");
    e2e.model.script(
      { ...call!, times: Infinity },
      { ...echo!, times: Infinity },
      {
        label: "reviewer",
        match: { model: "m2" },
        reply: error(400, { error: { message: "invalid parameter: unsupported model option", type: "invalid_request_error" } }),
      },
    );

    const run = await e2e.run(ws, ["run", "--command", "pr-review", "--", "#6"]);
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^Error: .*unsupported model option/m);
    expect(await worktrees(ws)).toHaveLength(1);
    // The reviewer's session ran in the temporary worktree (OpenCode names it in the system prompt).
    const dirs = e2e.model.requests.filter((r) => r.answeredBy === "reviewer").map((r) => /\S*otto-review-6-[^\s]+/.exec(r.system)?.[0]);
    expect(dirs.length).toBeGreaterThan(0);
    for (const dir of dirs) expect(dir !== undefined && !fs.existsSync(dir)).toBe(true);
    expect(posts(f.gh.calls, "/reviews")).toEqual([]);
    expect(fs.existsSync(path.join(ws.dirs.dataHome, "otto", "pr-review"))).toBe(false);
  });
});
