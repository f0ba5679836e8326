import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import {
  aheadBehind,
  currentBranch,
  headSha,
  isDirty,
  listRemotes,
  normalizedRemoteUrl,
  readStatus,
  remoteUrl,
  repoRoot,
} from "../../../src/workspace/index.ts";
import { addWorktree, findRepo, proposeRepo } from "../../../src/repo/index.ts";
import { GIT, clone, tempDir, trackedRepo } from "../repo/fixtures.ts";

describe("repository identity", () => {
  it("remote URL (as configured, not rewritten by insteadOf) and its normalised form", async () => {
    const app = await clone();
    await app.git(["remote", "set-url", "origin", "git@GitHub.com:Org/App.git"]);
    await app.git(["config", `url.${app.remote}.insteadOf`, "git@GitHub.com:Org/App.git"]);
    await app.git(["remote", "add", "upstream", "https://dev.azure.com/org/p/_git/app"]);
    expect(await remoteUrl(app.dir, GIT)).toBe("git@GitHub.com:Org/App.git");
    expect(await normalizedRemoteUrl(app.dir, GIT)).toBe("github.com/org/app");
    expect(await normalizedRemoteUrl(app.dir, GIT, "upstream")).toBe("dev.azure.com/org/p/app");
    expect((await listRemotes(app.dir, GIT)).map((r) => r.name)).toEqual(["origin", "upstream"]);
    expect(await remoteUrl(app.dir, GIT, "nope")).toBeUndefined();
  });

  it("current branch, head SHA, dirty state, ahead/behind", async () => {
    const app = await clone();
    const sha = await app.git(["rev-parse", "HEAD"]);
    expect(await currentBranch(app.dir, GIT)).toBe("main");
    expect(await headSha(app.dir, GIT)).toBe(sha);
    expect(await isDirty(app.dir, GIT)).toBe(false);
    expect(await aheadBehind(app.dir, GIT)).toEqual({ upstream: "origin/main", ahead: 0, behind: 0 });

    await app.commit("one");
    await app.commit("two");
    fs.writeFileSync(path.join(app.dir, "scratch.txt"), "x");
    expect(await isDirty(app.dir, GIT)).toBe(true);
    expect(await aheadBehind(app.dir, GIT)).toEqual({ upstream: "origin/main", ahead: 2, behind: 0 });
    await app.git(["push", "-q"]);
    await app.git(["reset", "-q", "--hard", "HEAD~1"]);
    expect(await aheadBehind(app.dir, GIT)).toEqual({ upstream: "origin/main", ahead: 0, behind: 1 });

    await app.git(["checkout", "-q", "--detach"]);
    expect(await currentBranch(app.dir, GIT)).toBeUndefined();
    expect((await readStatus(app.dir, GIT)).branch).toBeUndefined();
    await app.git(["checkout", "-q", "-b", "local-only"]);
    expect(await aheadBehind(app.dir, GIT)).toBeUndefined();
  });

  it("queries outside a repository return undefined", async () => {
    const dir = tempDir();
    expect(await repoRoot(dir, GIT)).toBeUndefined();
    expect(await currentBranch(dir, GIT)).toBeUndefined();
    expect(await headSha(dir, GIT)).toBeUndefined();
    expect(await listRemotes(path.join(dir, "missing"), GIT)).toEqual([]);
    expect(await proposeRepo(dir, GIT)).toBeUndefined();
  });
});

describe("finding the tracked repo", () => {
  it("by --repo, by the current directory (primary, worktree dir, subfolders), by remote URL", async () => {
    const app = await clone();
    const api = trackedRepo(app, { name: "api" });
    const nested = { ...trackedRepo(app, { name: "nested" }), primary_dir: path.join(app.dir, "vendor", "lib"), worktree_dir: undefined };
    fs.mkdirSync(nested.primary_dir, { recursive: true });
    const repos = [api, nested];
    expect((await findRepo(repos, { name: "nested", cwd: tempDir(), git: GIT })).name).toBe("nested");
    expect((await findRepo(repos, { cwd: path.join(app.dir, "vendor"), git: GIT })).name).toBe("api");
    expect((await findRepo(repos, { cwd: path.join(app.dir, "vendor", "lib"), git: GIT })).name).toBe("nested");
    const { dir } = await addWorktree(api, "x", GIT);
    expect((await findRepo(repos, { cwd: dir, git: GIT })).name).toBe("api");

    // Another clone of the same repository, anywhere on disk.
    const other = path.join(tempDir(), "other");
    await app.git(["clone", "-q", app.remote, other]);
    expect((await findRepo(repos, { cwd: other, git: GIT })).name).toBe("api");

    const unknown = await findRepo(repos, { name: "nope", cwd: tempDir(), git: GIT }).catch((e: unknown) => e);
    expect(isOttoError(unknown) && unknown.fix).toContain("tracked: api, nested");
    const none = await findRepo([], { cwd: tempDir(), git: GIT }).catch((e: unknown) => e);
    expect(isOttoError(none) && none.fix).toBe("Add the repo first: run /otto-repo add inside its clone.");
  });

  it("proposes the main clone even from inside one of its worktrees", async () => {
    const app = await clone();
    const { dir } = await addWorktree(trackedRepo(app), "x", GIT);
    const proposal = await proposeRepo(dir, GIT);
    expect(proposal?.entry).toEqual({ name: "app", primary_dir: app.dir, worktree_dir: `${app.dir}-wt`, git_strategy: "worktree" });
    expect(proposal?.remoteUrl).toBe(app.remote);
  });
});
