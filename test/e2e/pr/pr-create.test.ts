import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, slashCommand, text, useE2E, type Workspace } from "../../support/index.ts";
import { ottoCommand, ottoPr, useForges } from "../pr/forges.ts";

/*
 * /otto-pr create through real OpenCode: otto checks and pushes the branch to a bare remote (origin
 * spelt as the forge's URL, rewritten by git to the bare repository), opens the PR on the fake
 * forge and tracks it; a second create opens nothing.
 */

const prsDir = (ws: Workspace) => path.join(ws.dirs.dataHome, "otto", "prs");

/** origin spelt as the forge's URL, fetched from and pushed to the bare remote. */
async function originAs(ws: Workspace, url: string): Promise<void> {
  await ws.repo.git(["config", `url.${ws.repo.remote}.insteadOf`, url]);
  await ws.repo.git(["remote", "set-url", "origin", url]);
}

const remoteHead = async (ws: Workspace, branch: string): Promise<string | undefined> =>
  (await ws.repo.gitRemote(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]).catch(() => "")) || undefined;

/** The forge's head of a PR opened through its API: what the bare remote's branch points to. */
const bareHead =
  (ws: Workspace) =>
  (branch: string): string | undefined => {
    try {
      return (
        execFileSync("git", ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], {
          cwd: ws.repo.remote,
          encoding: "utf8",
        }).trim() || undefined
      );
    } catch {
      return undefined;
    }
  };

describe("/otto-pr create through real OpenCode", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("GitHub: refuses the default branch and an empty branch, pushes and opens one PR with the text as typed, tracks it; a second create opens none; a branch behind its remote is refused", async () => {
    const f = await forges();
    const ws = await e2e.workspace({ userOttoConfig: f.ottoConfig(), env: f.env, remote: true });
    await originAs(ws, "https://github.com/octo/app.git");
    f.gh.state.headOf = (_owner, _repo, branch) => bareHead(ws)(branch);
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });

    expect(await ottoPr(client, "create --title x")).toMatch(
      /^Error: You are on main, the repository's default branch: a PR needs a branch of its own\.\nNext step: .*git switch -c/,
    );
    await ws.repo.git(["checkout", "-q", "-b", "feature/rate-limit"]);
    expect(await ottoPr(client, "create --title x")).toMatch(/^Error: feature\/rate-limit has no commits that origin\/main lacks/);
    expect(f.gh.calls.filter((c) => c.method === "POST")).toEqual([]);

    await ws.repo.commit("Add the rate limiter", { "src/limit.js": "export const limit = 100;\n" });
    const head = await ws.repo.git(["rev-parse", "HEAD"]);
    const opened = await ottoPr(
      client,
      `create --title "Limit the user's requests" --body 'It's "quoted" and keeps --draft as text' --reviewer alice`,
    );
    expect(opened).toContain("Opened PR #1 in octo/app: Limit the user's requests");
    expect(opened).toContain("Branch: feature/rate-limit → main, 1 commit; pushed 1 commit to origin/feature/rate-limit.");
    expect(opened).toContain("Review requested from alice.");
    expect(opened).toContain("Tracking PR #1 (feature/rate-limit → main) in octo/app");
    // Pushed as it is, no force: the remote's branch is the local HEAD.
    expect(await remoteHead(ws, "feature/rate-limit")).toBe(head);
    expect(f.gh.state.prs).toHaveLength(1);
    const pr = f.gh.state.prs[0]!;
    expect(pr).toMatchObject({
      title: "Limit the user's requests",
      body: `It's "quoted" and keeps --draft as text`,
      draft: false,
      head: { ref: "feature/rate-limit" },
      base: { ref: "main" },
    });
    expect(f.gh.state.requestedReviewers.get(1)).toEqual(["alice"]);
    expect(fs.existsSync(path.join(prsDir(ws), "github-octo-app-1.md"))).toBe(true);

    const again = await ottoPr(client, "create --title y");
    expect(again).toContain("PR #1 is already open for feature/rate-limit in octo/app; no new PR was opened.");
    expect(again).toContain("Already tracking PR #1");
    expect(f.gh.state.prs).toHaveLength(1);
    expect(f.gh.calls.filter((c) => c.method === "POST" && c.path.endsWith("/pulls"))).toHaveLength(1);

    // Someone else pushed to the branch: otto would need force, so it refuses and says how to go on.
    const other = `${ws.project}-other`;
    await ws.repo.git(["worktree", "add", "-q", "--detach", other, "HEAD"]);
    fs.writeFileSync(path.join(other, "NOTES.md"), "theirs\n");
    await ws.repo.git(["-C", other, "add", "NOTES.md"]);
    await ws.repo.git(["-C", other, "commit", "-qm", "Their change"]);
    await ws.repo.git(["-C", other, "push", "-q", "origin", "HEAD:refs/heads/feature/rate-limit"]);
    await ws.repo.commit("Mine too", { "src/more.js": "export const more = 1;\n" });
    const behind = await ottoPr(client, "create --title z");
    expect(behind).toMatch(
      /^Error: feature\/rate-limit is 1 commit behind origin\/feature\/rate-limit: pushing would need force, which otto never uses\.\nNext step: .*git pull --rebase/,
    );
    expect(await remoteHead(ws, "feature/rate-limit")).not.toBe(await ws.repo.git(["rev-parse", "HEAD"]));
  });

  it("GitHub: without --body the primary model describes the diff in a read-only session; its text is shown and posted, known secrets redacted", async () => {
    const f = await forges();
    const ws = await e2e.workspace({
      userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1", secondary: "mock/m2" } }),
      env: f.env,
      remote: true,
    });
    await originAs(ws, "https://github.com/octo/app.git");
    await ws.repo.git(["checkout", "-q", "-b", "fix/timeout"]);
    await ws.repo.commit("Raise the timeout", { "src/timeout.js": "export const timeout = 30;\n" });
    const { client } = await e2e.serve(ws);
    // /pr-review without a PR looks up the current branch's PR on the forge: there is none yet.
    e2e.model.script(...slashCommand("otto_pr_review"));
    expect(await ottoCommand(client, "pr-review", "")).toMatch(
      /^Error: No PR was named, and fix\/timeout has no open PR in octo\/app on github\.\nNext step: Open one with \/otto-pr create/,
    );
    e2e.model.script(...slashCommand("otto_pr"), {
      label: "describe",
      match: { lastUser: "is about to become a pull request", lastRole: "user" },
      reply: (req) => {
        expect(req.lastUser).toContain("export const timeout = 30;");
        expect(req.toolNames.filter((n) => n === "edit" || n === "write" || n.startsWith("otto_"))).toEqual([]);
        return text(
          `Read it.\nBEGIN_JSON\n${JSON.stringify({ title: "Raise the request timeout to 30 s", body: `Raises the timeout.\n\n## Changes\n- \`src/timeout.js\`: 30 s (token ${f.env.GITHUB_TOKEN})` })}\nEND_JSON`,
        );
      },
    });
    const out = await ottoPr(client, "create --draft");
    expect(out).toContain("Opened PR #1 in octo/app (draft): Raise the request timeout to 30 s");
    expect(out).toContain("Description (mock/m1, from the diff):");
    expect(out).toContain("- `src/timeout.js`: 30 s");
    const pr = f.gh.state.prs[0]!;
    expect(pr.draft).toBe(true);
    expect(pr.body).toContain("## Changes");
    expect(pr.body).not.toContain(f.env.GITHUB_TOKEN);
    expect(out).not.toContain(f.env.GITHUB_TOKEN);
  });

  it("Azure DevOps: --spec builds the description from the spec's files, the PR is opened with auto-complete and tracked; a second create opens none", async () => {
    const f = await forges();
    const ws = await e2e.workspace({ userOttoConfig: f.ottoConfig(), env: f.env, remote: true });
    await originAs(ws, "https://dev.azure.com/contoso/payments/_git/app");
    f.ado.state.headOf = (_repo, branch) => bareHead(ws)(branch);
    await ws.repo.git(["checkout", "-q", "-b", "otto/rate-limit"]);
    await ws.repo.commit("Rate limit: phase 1", {
      "src/limit.js": "export const limit = 100;\n",
      ".otto/specs/rate-limit/requirements.md":
        "# Requirements: Rate limiting\n\n## Introduction\nLimit each API key to 100 requests a minute.\n\n## Requirements\n- R1\n",
      ".otto/specs/rate-limit/tasks.md":
        "# Tasks\n\n## Task 1: Token bucket\n- **id**: task-001\n- **status**: completed\n- **parallel_group**: 1\n- **depends_on**: []\n- **description**: The bucket.\n- **files**: [src/limit.js]\n- **changed_files**: src/limit.js\n- **checks**: npm test: exit 0\n- **commit**: 0123456789abcdef0123\n\n## Task 2: Headers\n- **id**: task-002\n- **status**: pending\n- **parallel_group**: 2\n- **depends_on**: [task-001]\n- **description**: Retry-After.\n- **files**: [src/headers.js]\n",
      ".otto/specs/rate-limit/questions.md":
        "# Questions\n\n## Q1: Which header carries the key?\n- **source**: design (2026-11-24)\n- **status**: unanswered\n- **question**: X-Api-Key or Authorization?\n",
    });
    const { client } = await e2e.serve(ws);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });

    const out = await ottoPr(client, "create --spec rate-limit");
    expect(out).toContain("Opened PR #1 in contoso/payments/app: Rate limiting");
    expect(out).toContain("Auto-complete set on PR 1.");
    const pr = f.ado.state.prs.find((p) => p.title === "Rate limiting");
    expect(pr).toMatchObject({ sourceRefName: "refs/heads/otto/rate-limit", targetRefName: "refs/heads/main", status: "active" });
    expect(pr?.autoCompleteSetBy?.id).toBe(f.ado.state.me.id);
    expect(pr?.description).toContain("## Goal\n\nLimit each API key to 100 requests a minute.");
    expect(pr?.description).toContain("- [x] task-001: Token bucket (commit 0123456789ab; changed src/limit.js; checks: npm test: exit 0)");
    expect(pr?.description).toContain("- [ ] task-002: Headers (pending)");
    expect(pr?.description).toContain("- Q1: Which header carries the key?");
    expect(await remoteHead(ws, "otto/rate-limit")).toBe(await ws.repo.git(["rev-parse", "HEAD"]));
    expect(fs.existsSync(path.join(prsDir(ws), "ado-contoso-1.md"))).toBe(true);

    expect(await ottoPr(client, "create --spec rate-limit")).toContain(
      "PR #1 is already open for otto/rate-limit in contoso/payments/app; no new PR was opened.",
    );
    expect(f.ado.state.prs.filter((p) => p.sourceRefName === "refs/heads/otto/rate-limit")).toHaveLength(1);
  });
});
