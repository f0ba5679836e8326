import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { OpencodeClient, Part, ToolPart } from "@opencode-ai/sdk";
import { slashCommand, text, useE2E, type RecordedCall, type Workspace } from "../../support/index.ts";
import { useForges } from "../pr/forges.ts";

/*
 * /pr-review one-shot for a PR whose repository is registered in otto's `repos` with the worktree
 * strategy: the review runs in the repo's worktree for the PR branch (<worktree_dir>/<name>, created
 * on demand and kept, since it belongs to the repo), not in a temporary one; the draft is saved, and
 * `/pr-review post 1 --pr <url>` posts exactly that comment as one review on the fake GitHub.
 */

const PR_URL = "https://github.com/octo/app/pull/7";
const HOSTED = "https://github.com/octo/app.git";
// branch_template users/me/{{name}}: the PR's branch users/me/auth maps to the worktree named "auth".
const BRANCH = "users/me/auth";
const MAIN_AUTH = Array.from({ length: 30 }, (_, i) => `export const v${i + 1} = ${i + 1};`).join("\n") + "\n";

/**
 * The PR branch pushed to the bare remote; then the local branch is deleted, so otto's mapping has
 * to fetch it and create a tracking branch in the worktree. origin is spelled like GitHub.
 */
async function prBranch(ws: Workspace): Promise<void> {
  const git = (args: string[]) => ws.repo.git(args);
  await git(["checkout", "-q", "-b", BRANCH]);
  ws.writeFiles({ "src/auth.ts": MAIN_AUTH.replace("export const v5 = 5;", "export const v5 = await fetch(url);") });
  await git(["add", "-A"]);
  await git(["-c", "user.name=dev", "-c", "user.email=dev@example.invalid", "commit", "-q", "-m", "Add auth"]);
  await git(["push", "-q", "origin", BRANCH]);
  await git(["checkout", "-q", "main"]);
  await git(["branch", "-q", "-D", BRANCH]);
  await git(["remote", "set-url", "origin", HOSTED]);
  await git(["config", `url.${ws.repo.remote}.insteadOf`, HOSTED]);
}

const ENVELOPE = {
  summary: "Adds an unchecked fetch.",
  comments: [
    { file: "src/auth.ts", line: 5, severity: "error", title: "Unchecked fetch", body: "The response status is never checked." },
    { file: "src/auth.ts", line: 6, severity: "nitpick", title: "Naming", body: "v6 could say what it holds." },
  ],
};

/**
 * `/pr-review <args>` typed in a session of a served OpenCode; returns otto_pr_review's output.
 * (Headless `opencode run -- post 1` cannot be used: OpenCode's CLI turns the bare `1` into a number and fails.)
 */
async function prReview(client: OpencodeClient, args: string): Promise<string> {
  const session = (await client.session.create({ body: { title: `pr-review ${args}` }, throwOnError: true })).data;
  await client.session.command({ path: { id: session.id }, body: { command: "pr-review", arguments: args }, throwOnError: true });
  const messages = (await client.session.messages({ path: { id: session.id }, throwOnError: true })).data;
  const tool = messages.flatMap((m) => m.parts).find((p: Part): p is ToolPart => p.type === "tool" && p.tool === "otto_pr_review");
  if (!tool || tool.state.status !== "completed")
    throw new Error(`otto_pr_review did not complete for '${args}': ${JSON.stringify(tool?.state ?? messages.map((m) => m.parts))}`);
  return tool.state.output;
}

const posts = (calls: RecordedCall[], suffix: string) => calls.filter((c) => c.method === "POST" && c.path.endsWith(suffix));

describe("/pr-review of a PR in a tracked repo (worktree strategy)", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("reviews in <worktree_dir>/<name> and keeps it; post 1 --pr <url> posts exactly that comment as one review", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 7, title: "Add auth", branch: BRANCH });
    pr.diffLines = { "src/auth.ts": [2, 3, 4, 5, 6, 7, 8] };
    const ws = await e2e.workspace({ remote: true, files: { "src/auth.ts": MAIN_AUTH }, env: f.env });
    const worktreeDir = path.join(ws.root, "app-wt");
    ws.writeOttoConfig(
      f.ottoConfig({
        models: { reviewers: ["mock/m2"] },
        repos: [
          {
            name: "app",
            primary_dir: ws.project,
            worktree_dir: worktreeDir,
            git_strategy: "worktree",
            branch_template: "users/me/{{name}}",
          },
        ],
      }),
      "user",
    );
    await prBranch(ws);
    const [call, echo] = slashCommand("otto_pr_review");
    e2e.model.script(
      { ...call!, times: Infinity },
      { ...echo!, times: Infinity },
      {
        label: "reviewer",
        match: { model: "m2", lastUser: "You are reviewing a pull request" },
        reply: text(`Read the diff.\nBEGIN_JSON\n${JSON.stringify(ENVELOPE)}\nEND_JSON`),
      },
    );

    const review = await e2e.run(ws, ["run", "--command", "pr-review", "--", PR_URL]);
    expect(review.exitCode, review.stderr).toBe(0);
    const dir = path.join(worktreeDir, "auth");
    expect(review.stdout).toContain(`Checked out ${BRANCH}: worktree strategy of repo 'app' in ${dir}`);
    expect(review.stdout).not.toContain("temporary worktree");
    expect(review.stdout).toContain("Generated 2 review comments.");

    // The reviewer's session ran in the repo's worktree (OpenCode names its directory in the system prompt).
    const requests = e2e.model.requests.filter((r) => r.answeredBy === "reviewer");
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) expect(request.system).toContain(dir);
    expect(requests[0]?.lastUser).toContain("git diff origin/main...HEAD");

    // The worktree belongs to the repo's strategy: still there afterwards, on the PR's branch, tracking origin.
    expect(fs.readFileSync(path.join(dir, "src/auth.ts"), "utf8")).toContain("await fetch(url)");
    const list = await ws.repo.git(["worktree", "list", "--porcelain"]);
    expect(list).toContain(`worktree ${fs.realpathSync(dir)}\n`);
    expect(list).toContain(`branch refs/heads/${BRANCH}`);
    expect(await ws.repo.git(["-C", dir, "rev-parse", "--abbrev-ref", "@{upstream}"])).toBe(`origin/${BRANCH}`);
    expect(await ws.repo.git(["-C", dir, "status", "--porcelain"])).toBe("");
    // The primary clone was not switched.
    expect(await ws.repo.git(["branch", "--show-current"])).toBe("main");

    // The draft is saved; nothing posted yet.
    const draftFile = path.join(ws.dirs.dataHome, "otto", "pr-review", "github-octo-app-7.json");
    expect(review.stdout).toContain(`Draft saved: ${draftFile}`);
    expect(JSON.parse(fs.readFileSync(draftFile, "utf8"))).toMatchObject({
      pr: { number: 7 },
      comments: [
        { id: 1, file: "src/auth.ts", line: 5, inDiff: true },
        { id: 2, file: "src/auth.ts", line: 6, inDiff: true },
      ],
    });
    expect(posts(f.gh.calls, "/reviews")).toEqual([]);

    // A newer draft of another PR: without --pr, post would pick it.
    const other = JSON.parse(fs.readFileSync(draftFile, "utf8")) as { pr: { number: number; url: string } };
    const otherFile = path.join(path.dirname(draftFile), "github-octo-app-8.json");
    fs.writeFileSync(otherFile, JSON.stringify({ ...other, pr: { ...other.pr, number: 8, url: "https://github.com/octo/app/pull/8" } }), {
      mode: 0o600,
    });
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(otherFile, later, later);

    const { client } = await e2e.serve(ws);
    const post = await prReview(client, `post 1 --pr ${PR_URL}`);
    expect(post).toContain(`Posted 1 inline comment on PR #7 as one review: ${PR_URL}`);
    const reviews = posts(f.gh.calls, "/reviews");
    expect(reviews).toHaveLength(1);
    expect(reviews[0]?.path).toMatch(/\/repos\/octo\/app\/pulls\/7\/reviews$/);
    expect(reviews[0]?.status).toBe(200);
    const sent = reviews[0]?.body as {
      event: string;
      commit_id: string;
      body?: string;
      comments: Array<{ path: string; line: number; side: string; body: string }>;
    };
    expect(sent.event).toBe("COMMENT");
    expect(sent.commit_id).toBe(pr.head.sha);
    expect(sent.comments.map((c) => [c.path, c.line, c.side])).toEqual([["src/auth.ts", 5, "RIGHT"]]);
    expect(sent.comments[0]?.body).toContain("The response status is never checked.");
    expect(JSON.stringify(sent)).not.toContain("v6 could say what it holds.");
    // Without --summary, the model's summary is not posted.
    expect(JSON.stringify(sent)).not.toContain("Adds an unchecked fetch.");
    expect(f.gh.state.reviewComments.map((c) => [c.path, c.line])).toEqual([["src/auth.ts", 5]]);
    expect(JSON.parse(fs.readFileSync(draftFile, "utf8"))).toMatchObject({ posted: [1] });
    expect(JSON.parse(fs.readFileSync(otherFile, "utf8"))).toMatchObject({ posted: [] });
    // Still kept after posting.
    expect(fs.existsSync(dir)).toBe(true);
    expect(e2e.model.pending().map((p) => p.label)).toEqual([]);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
