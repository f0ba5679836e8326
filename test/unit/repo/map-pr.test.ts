import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { addWorktree, currentBranch, mapPrToWorkdir, type PrWorkdir } from "../../../src/repo/index.ts";
import { git } from "../../support/git.ts";
import { GIT, clone, fakeGit, tempDir, trackedRepo } from "./fixtures.ts";

type Clone = Awaited<ReturnType<typeof clone>>;

/**
 * A clone whose origin is spelled like a hosted repository, while fetches go to the local bare
 * remote (url.<path>.insteadOf), and a PR branch pushed there from another clone.
 */
async function hosted(originUrl: string, prBranch = "users/me/fix-auth"): Promise<Clone> {
  const app = await clone();
  const other = path.join(tempDir(), "other");
  await git(["clone", "-q", app.remote, other], path.dirname(other));
  await git(["checkout", "-q", "-b", prBranch], other);
  await git(["-c", "user.name=o", "-c", "user.email=o@example.invalid", "commit", "-q", "--allow-empty", "-m", "PR work"], other);
  await git(["push", "-q", "origin", prBranch], other);
  await app.git(["remote", "set-url", "origin", originUrl]);
  await app.git(["config", `url.${app.remote}.insteadOf`, originUrl]);
  return app;
}

async function failure(promise: Promise<PrWorkdir>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isOttoError(error)) throw new Error(`expected an OttoError, got ${String(error)}`);
  return error;
}

const GITHUB_FORMS = [
  "https://github.com/org/app",
  "https://github.com/Org/App.git",
  "ssh://git@github.com/org/app.git",
  "git@github.com:org/app",
  "HTTPS://GITHUB.COM/org/app/",
];

const ADO_FORMS = [
  "https://dev.azure.com/org/proj/_git/app",
  "https://org@dev.azure.com/org/proj/_git/app",
  "git@ssh.dev.azure.com:v3/org/proj/app",
  "org@vs-ssh.visualstudio.com:v3/org/proj/app",
  "https://org.visualstudio.com/proj/_git/app",
];

describe("mapPrToWorkdir", () => {
  it.each(GITHUB_FORMS)("worktree strategy, GitHub repo URL %s: creates the worktree on demand, then reuses it", async (repoUrl) => {
    const app = await hosted("git@github.com:org/app.git");
    const config = { repos: [trackedRepo(app)] };
    const mapped = await mapPrToWorkdir({ repoUrl, branch: "users/me/fix-auth", config, cwd: tempDir(), git: GIT });
    const dir = path.join(`${app.dir}-wt`, "fix-auth");
    expect(mapped).toMatchObject({ dir, strategy: "worktree", created: true, onBranch: true, remote: "origin" });
    expect(mapped.commands).toEqual([
      `git -C ${app.dir} fetch origin +refs/heads/users/me/fix-auth:refs/remotes/origin/users/me/fix-auth`,
      `git -C ${app.dir} worktree add --track -b users/me/fix-auth ${dir} origin/users/me/fix-auth`,
    ]);
    expect(await currentBranch(dir, GIT)).toBe("users/me/fix-auth");
    expect(await git(["log", "-1", "--format=%s"], dir)).toBe("PR work");
    const again = await mapPrToWorkdir({ repoUrl, branch: "users/me/fix-auth", config, cwd: tempDir(), git: GIT });
    expect(again).toMatchObject({ dir, created: false, commands: [] });
  });

  it.each(ADO_FORMS)("branch strategy, Azure DevOps repo URL %s: fetches and checks out in the primary dir", async (repoUrl) => {
    const app = await hosted("https://dev.azure.com/org/proj/_git/app", "feature/pr-7");
    const config = { repos: [trackedRepo(app, { git_strategy: "branch" })] };
    const mapped = await mapPrToWorkdir({ repoUrl, branch: "feature/pr-7", config, cwd: tempDir(), git: GIT });
    expect(mapped).toMatchObject({ dir: app.dir, strategy: "branch", created: false, onBranch: true });
    expect(await currentBranch(app.dir, GIT)).toBe("feature/pr-7");
    expect(await app.git(["rev-parse", "--abbrev-ref", "feature/pr-7@{upstream}"])).toBe("origin/feature/pr-7");
  });

  it("worktree strategy: a branch that does not follow branch_template gets a safe folder name; an existing local branch is reused", async () => {
    const app = await hosted("git@github.example.com:org/app.git", "dependabot/npm/lodash");
    const config = { repos: [trackedRepo(app)] };
    await app.git(["fetch", "-q", "origin", "dependabot/npm/lodash:dependabot/npm/lodash"]);
    const mapped = await mapPrToWorkdir({ repoUrl: "https://github.example.com/org/app", branch: "dependabot/npm/lodash", config, cwd: tempDir(), git: GIT });
    expect(mapped.dir).toBe(path.join(`${app.dir}-wt`, "dependabot-npm-lodash"));
    expect(mapped.commands[1]).toBe(`git -C ${app.dir} worktree add ${mapped.dir} dependabot/npm/lodash`);
  });

  it("worktree strategy: a worktree otto made earlier for the branch is used as it is", async () => {
    const app = await hosted("git@github.com:org/app.git");
    const repo = trackedRepo(app);
    const earlier = await addWorktree(repo, "fix-auth", GIT);
    const mapped = await mapPrToWorkdir({ repoUrl: "https://github.com/org/app", branch: "users/me/fix-auth", config: { repos: [repo] }, cwd: tempDir(), git: GIT });
    expect(mapped).toMatchObject({ dir: earlier.dir, created: false, commands: [] });
  });

  it("worktree strategy: the target folder holding another branch is a conflict, not a silent reuse", async () => {
    const app = await hosted("git@github.com:org/app.git");
    const repo = trackedRepo(app);
    await addWorktree(repo, "fix-auth", GIT);
    await app.git(["-C", path.join(`${app.dir}-wt`, "fix-auth"), "checkout", "-q", "-b", "something-else"]);
    const error = await failure(mapPrToWorkdir({ repoUrl: "https://github.com/org/app", branch: "users/me/fix-auth", config: { repos: [repo] }, cwd: tempDir(), git: GIT }));
    expect(error.code).toBe("worktree_conflict");
  });

  it("branch strategy refuses a dirty primary dir with a clear message", async () => {
    const app = await hosted("git@github.com:org/app.git");
    fs.writeFileSync(path.join(app.dir, "README.md"), "local edit\n");
    const config = { repos: [trackedRepo(app, { git_strategy: "branch" })] };
    const error = await failure(mapPrToWorkdir({ repoUrl: "https://github.com/org/app", branch: "users/me/fix-auth", config, cwd: tempDir(), git: GIT }));
    expect(error.code).toBe("worktree_dirty");
    expect(error.message).toContain(`Cannot check out 'users/me/fix-auth' in ${app.dir}: it has uncommitted changes on main`);
    expect(error.message).toContain(".M README.md");
    expect(error.fix).toContain("stash");
    expect(await currentBranch(app.dir, GIT)).toBe("main");
  });

  it("branch strategy: a branch missing on the remote says so", async () => {
    const app = await hosted("git@github.com:org/app.git");
    const config = { repos: [trackedRepo(app, { git_strategy: "branch" })] };
    const error = await failure(mapPrToWorkdir({ repoUrl: "https://github.com/org/app", branch: "deleted", config, cwd: tempDir(), git: GIT }));
    expect(error.code).toBe("pr_branch_missing");
  });

  it("hands-off: the right branch checked out is used; another one fails with the exact checkout command", async () => {
    const app = await hosted("git@github.com:org/app.git");
    const config = { repos: [trackedRepo(app, { git_strategy: "hands-off" })] };
    const input = { repoUrl: "https://github.com/org/app.git", branch: "users/me/fix-auth", config, cwd: tempDir(), git: GIT };
    const error = await failure(mapPrToWorkdir(input));
    expect(error.code).toBe("hands_off_branch");
    expect(error.message).toContain("has 'main' checked out, not 'users/me/fix-auth'");
    // Not fetched yet: the command fetches it first.
    expect(error.fix).toBe(`git -C ${app.dir} fetch origin users/me/fix-auth && git -C ${app.dir} checkout users/me/fix-auth`);
    expect(await currentBranch(app.dir, GIT)).toBe("main");
    await app.git(["fetch", "-q", "origin"]);
    expect((await failure(mapPrToWorkdir(input))).fix).toBe(`git -C ${app.dir} checkout users/me/fix-auth`);
    await app.git(["checkout", "-q", "users/me/fix-auth"]);
    expect(await mapPrToWorkdir(input)).toMatchObject({ dir: app.dir, strategy: "hands-off", commands: [] });
  });

  it("matches the current directory when it is a clone of the repository, from any subfolder", async () => {
    const app = await hosted("git@github.com:org/app.git");
    fs.mkdirSync(path.join(app.dir, "src"));
    const mapped = await mapPrToWorkdir({ repoUrl: "https://github.com/org/app", branch: "users/me/fix-auth", config: { repos: [] }, cwd: path.join(app.dir, "src"), git: GIT });
    expect(mapped).toMatchObject({ dir: app.dir, strategy: "cwd", repo: undefined, onBranch: false, created: false });
  });

  it("finds the repo by another remote than origin (a fork setup)", async () => {
    const app = await hosted("git@github.com:me/app.git");
    await app.git(["remote", "add", "upstream", "git@github.com:org/app.git"]);
    const mapped = await mapPrToWorkdir({ repoUrl: "https://github.com/org/app", branch: "x", config: { repos: [trackedRepo(app, { git_strategy: "hands-off" })] }, cwd: tempDir(), git: GIT }).catch((e: unknown) => e);
    expect(isOttoError(mapped) && mapped.code).toBe("hands_off_branch");
  });

  it("a hung fetch is stopped at the timeout, the error names the command, and nothing is created", async () => {
    const app = await hosted("git@github.com:org/app.git");
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    const fake = fakeGit(`if [ "$1" = fetch ]; then sleep 30; fi\nexec '${realGit}' "$@"`);
    const started = Date.now();
    const error = await failure(
      mapPrToWorkdir({ repoUrl: "https://github.com/org/app", branch: "users/me/fix-auth", config: { repos: [trackedRepo(app)] }, cwd: tempDir(), git: { env: fake.env, timeouts: { write: 300 } } }),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.code).toBe("git_timeout");
    expect(error.message).toContain(`git -C ${app.dir} fetch origin +refs/heads/users/me/fix-auth`);
    expect(fs.existsSync(`${app.dir}-wt`)).toBe(false);
  });

  it("no match: the design's message; never clones", async () => {
    const app = await hosted("git@github.com:org/app.git");
    const cwd = tempDir();
    const error = await failure(mapPrToWorkdir({ repoUrl: "https://github.com/org/other", branch: "x", config: { repos: [trackedRepo(app)] }, cwd, git: GIT }));
    expect(error.code).toBe("repo_not_found");
    expect(error.message).toBe("Cannot find local repo for https://github.com/org/other. Add it with /otto-repo add or run from within the repo.");
    expect(fs.readdirSync(cwd)).toEqual([]);
    expect((await failure(mapPrToWorkdir({ repoUrl: "not a url", branch: "x", config: { repos: [] }, cwd, git: GIT }))).code).toBe("repo_url");
  });
});
