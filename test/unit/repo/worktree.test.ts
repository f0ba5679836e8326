import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { addWorktree, listWorktrees, removeWorktree } from "../../../src/repo/index.ts";
import { currentBranch, unpushedCommits } from "../../../src/workspace/index.ts";
import { GIT, clone, tempDir, trackedRepo } from "./fixtures.ts";

async function codeOf(promise: Promise<unknown>): Promise<{ code: string; message: string; fix: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isOttoError(error)) throw new Error(`expected an OttoError, got ${String(error)}`);
  return { code: error.code, message: error.message, fix: error.fix ?? "" };
}

describe("worktree strategy", () => {
  it("add creates <worktree_dir>/<name> on a new branch from branch_template; list shows it; remove takes it away", async () => {
    const app = await clone();
    const repo = trackedRepo(app);
    const added = await addWorktree(repo, "fix-auth", GIT);
    const dir = path.join(`${app.dir}-wt`, "fix-auth");
    expect(added).toMatchObject({
      strategy: "worktree",
      branch: "users/me/fix-auth",
      dir,
      base: expect.stringMatching(/^main at [0-9a-f]{7}$/) as unknown,
    });
    expect(added.command).toBe(`git worktree add ${dir} -b users/me/fix-auth`);
    expect(await currentBranch(dir, GIT)).toBe("users/me/fix-auth");

    const listing = await listWorktrees(repo, { git: GIT });
    expect(listing.entries.map((e) => [e.kind, e.branch, e.path, e.state, e.managed])).toEqual([
      ["primary", "main", app.dir, "clean", false],
      ["worktree", "users/me/fix-auth", dir, "clean", true],
    ]);
    expect(listing.entries[0]).toMatchObject({ upstream: "origin/main", ahead: 0, behind: 0 });

    expect((await codeOf(addWorktree(repo, "fix-auth", GIT))).code).toBe("worktree_exists");

    const removed = await removeWorktree(repo, "fix-auth", { git: GIT });
    expect(removed).toMatchObject({ dir, branch: "users/me/fix-auth", branchDeleted: false, discarded: [] });
    expect(removed.notes.join("\n")).toContain("Branch 'users/me/fix-auth' was kept");
    expect(fs.existsSync(dir)).toBe(false);
    // The branch is still there, so adding again checks it out instead of recreating it.
    const again = await addWorktree(repo, "fix-auth", GIT);
    expect(again.base).toBeUndefined();
    expect(again.command).toBe(`git worktree add ${dir} users/me/fix-auth`);
  });

  it("list shows dirty state, ahead/behind, specs with unfinished tasks and tracked PRs on the branch", async () => {
    const app = await clone();
    const repo = trackedRepo(app);
    const { dir } = await addWorktree(repo, "rate", GIT);
    await app.git(["-C", dir, "push", "-q", "-u", "origin", "users/me/rate"]);
    fs.writeFileSync(path.join(dir, "wip.txt"), "x");
    await app.git(["-C", dir, "commit", "-q", "--allow-empty", "-m", "local"]);
    const prDir = tempDir();
    fs.writeFileSync(
      path.join(prDir, "github-42.md"),
      "---\nbranch: users/me/rate\nrepo: https://github.com/org/app\nurl: https://github.com/org/app/pull/42\n---\n# PR\n",
    );
    fs.writeFileSync(path.join(prDir, "github-43.md"), "---\nbranch: users/me/rate\nrepo: other\n---\n");
    fs.writeFileSync(path.join(prDir, "broken.md"), "---\n: : :\n---\n");
    await app.git(["remote", "set-url", "origin", "git@github.com:org/app.git"]);
    const specs = (d: string) => (d === dir ? [{ slug: "rate-limiting", unfinished: 1, total: 2 }] : []);
    const listing = await listWorktrees(repo, { git: GIT, prDir, specs });
    const entry = listing.entries.find((e) => e.path === dir);
    expect(entry).toMatchObject({ state: "dirty", changes: 1, upstream: "origin/users/me/rate", ahead: 1, behind: 0 });
    expect(entry?.specs).toEqual([{ slug: "rate-limiting", unfinished: 1, total: 2 }]);
    expect(entry?.prs.map((p) => p.id)).toEqual(["github-42"]);
    expect(listing.entries[0]?.prs).toEqual([]);
  });

  it("remove refuses uncommitted changes without --force, and says what --force discarded", async () => {
    const app = await clone();
    const repo = trackedRepo(app);
    const { dir } = await addWorktree(repo, "wip", GIT);
    fs.writeFileSync(path.join(dir, "README.md"), "changed\n");
    fs.writeFileSync(path.join(dir, "new.txt"), "new\n");
    const refused = await codeOf(removeWorktree(repo, "wip", { git: GIT }));
    expect(refused.code).toBe("worktree_dirty");
    expect(refused.message).toContain(".M README.md");
    expect(refused.message).toContain("?? new.txt");
    expect(refused.fix).toContain("--force");
    expect(fs.existsSync(dir)).toBe(true);
    const removed = await removeWorktree(repo, "wip", { force: true, git: GIT });
    expect(removed.discarded).toEqual([".M README.md", "?? new.txt"]);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("--delete-branch keeps a branch with unpushed commits unless --force, and says so either way", async () => {
    const app = await clone();
    const repo = trackedRepo(app);
    const first = await addWorktree(repo, "one", GIT);
    await app.git(["-C", first.dir, "commit", "-q", "--allow-empty", "-m", "unpushed work"]);
    const kept = await removeWorktree(repo, "one", { deleteBranch: true, git: GIT });
    expect(kept.branchDeleted).toBe(false);
    expect(kept.unpushed).toHaveLength(1);
    expect(kept.notes.join("\n")).toMatch(/was kept: it has 1 commit on no remote/);
    expect(await unpushedCommits(app.dir, "users/me/one", GIT)).toHaveLength(1);

    await addWorktree(repo, "one", GIT);
    const forced = await removeWorktree(repo, "one", { deleteBranch: true, force: true, git: GIT });
    expect(forced).toMatchObject({ branchDeleted: true, unpushed: [expect.stringMatching(/^[0-9a-f]+$/) as unknown] });

    await addWorktree(repo, "two", GIT);
    const clean = await removeWorktree(repo, "two", { deleteBranch: true, git: GIT });
    expect(clean).toMatchObject({ branchDeleted: true, unpushed: [] });
  });

  it("remove of an unknown name, and of a worktree whose folder is gone", async () => {
    const app = await clone();
    const repo = trackedRepo(app);
    expect((await codeOf(removeWorktree(repo, "nope", { git: GIT }))).code).toBe("worktree_not_found");
    const { dir } = await addWorktree(repo, "gone", GIT);
    fs.rmSync(dir, { recursive: true, force: true });
    expect((await listWorktrees(repo, { git: GIT })).entries.find((e) => e.branch === "users/me/gone")?.state).toBe("missing");
    const removed = await removeWorktree(repo, "gone", { git: GIT });
    expect(removed.notes[0]).toContain("was already gone");
  });

  it("without worktree_dir, worktrees go to <primary_dir>-wt; a missing primary dir is a clear error", async () => {
    const app = await clone();
    const repo = trackedRepo(app, { branch_template: undefined, worktree_dir: undefined });
    const added = await addWorktree(repo, "plain", GIT);
    expect(added).toMatchObject({ dir: path.join(`${app.dir}-wt`, "plain"), branch: "plain" });
    const missing = await codeOf(addWorktree({ ...repo, primary_dir: path.join(app.dir, "nope") }, "x", GIT));
    expect(missing.code).toBe("repo_dir_missing");
    expect(missing.message).toContain("does not exist");
  });
});

describe("branch strategy", () => {
  it("add runs git checkout -b in the primary dir; list shows otto's branches; remove deletes a branch", async () => {
    const app = await clone();
    const repo = trackedRepo(app, { git_strategy: "branch", worktree_dir: undefined, branch_patterns: ["hotfix/*"] });
    await app.git(["branch", "hotfix/urgent"]);
    await app.git(["branch", "unrelated"]);
    const added = await addWorktree(repo, "fix-auth", GIT);
    expect(added).toMatchObject({
      strategy: "branch",
      dir: app.dir,
      branch: "users/me/fix-auth",
      command: "git checkout -b users/me/fix-auth",
    });
    expect(await currentBranch(app.dir, GIT)).toBe("users/me/fix-auth");
    expect((await codeOf(addWorktree(repo, "fix-auth", GIT))).code).toBe("branch_exists");

    fs.writeFileSync(path.join(app.dir, "dirty.txt"), "x");
    const listing = await listWorktrees(repo, { git: GIT });
    expect(listing.entries.map((e) => [e.kind, e.branch, e.state, e.managed])).toEqual([
      ["primary", "users/me/fix-auth", "dirty", true],
      ["branch", "hotfix/urgent", undefined, true],
    ]);

    expect((await codeOf(removeWorktree(repo, "fix-auth", { git: GIT }))).code).toBe("branch_checked_out");
    fs.rmSync(path.join(app.dir, "dirty.txt"));
    await app.git(["checkout", "-q", "main"]);
    await app.git(["commit", "-q", "--allow-empty", "-m", "main moves on"]);
    await app.git(["checkout", "-q", "users/me/fix-auth"]);
    await app.git(["commit", "-q", "--allow-empty", "-m", "work"]);
    await app.git(["checkout", "-q", "main"]);
    const refused = await codeOf(removeWorktree(repo, "fix-auth", { git: GIT }));
    expect(refused.code).toBe("branch_unpushed");
    expect(refused.message).toContain("1 commit on no remote");
    const removed = await removeWorktree(repo, "fix-auth", { force: true, git: GIT });
    expect(removed).toMatchObject({ strategy: "branch", branchDeleted: true, unpushed: [expect.any(String) as unknown] });
    expect(await app.git(["branch", "--list", "users/me/fix-auth"])).toBe("");
  });
});

describe("hands-off strategy", () => {
  it("add and remove refuse; list shows what is checked out", async () => {
    const app = await clone();
    const repo = trackedRepo(app, { git_strategy: "hands-off" });
    const refused = await codeOf(addWorktree(repo, "x", GIT));
    expect(refused.code).toBe("repo_hands_off");
    expect(refused.fix).toContain(`git -C ${app.dir} switch -c users/me/x`);
    expect((await codeOf(removeWorktree(repo, "x", { git: GIT }))).code).toBe("repo_hands_off");
    const listing = await listWorktrees(repo, { git: GIT });
    expect(listing.entries.map((e) => [e.kind, e.branch, e.state])).toEqual([["primary", "main", "clean"]]);
    expect(fs.existsSync(`${app.dir}-wt`)).toBe(false);
  });
});
