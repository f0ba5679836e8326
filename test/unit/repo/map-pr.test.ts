import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { addWorktree, mapPrToWorkdir, type PrWorkdir } from "../../../src/repo/index.ts";
import { currentBranch } from "../../../src/workspace/index.ts";
import { createRepoWithRemote, git } from "../../support/git.ts";
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

/** Every spelling of a PR's repository URL otto must match, with the origin the clone has. */
const GITHUB_ORIGIN = "git@github.com:org/app.git";
const ADO_ORIGIN = "https://dev.azure.com/org/proj/_git/app";
const URL_FORMS: Array<[form: string, repoUrl: string, origin: string]> = [
  ["GitHub https", "https://github.com/org/app", GITHUB_ORIGIN],
  ["GitHub https .git, other case", "https://github.com/Org/App.git", GITHUB_ORIGIN],
  ["GitHub https, upper-case host, trailing slash", "HTTPS://GITHUB.COM/org/app/", GITHUB_ORIGIN],
  ["GitHub ssh://", "ssh://git@github.com/org/app.git", GITHUB_ORIGIN],
  ["GitHub scp-like", "git@github.com:org/app", GITHUB_ORIGIN],
  ["ADO dev.azure.com", "https://dev.azure.com/org/proj/_git/app", ADO_ORIGIN],
  ["ADO dev.azure.com with user", "https://org@dev.azure.com/org/proj/_git/app", ADO_ORIGIN],
  ["ADO visualstudio.com", "https://org.visualstudio.com/proj/_git/app", ADO_ORIGIN],
  ["ADO visualstudio.com/DefaultCollection", "https://org.visualstudio.com/DefaultCollection/proj/_git/app", ADO_ORIGIN],
  ["ADO ssh.dev.azure.com", "git@ssh.dev.azure.com:v3/org/proj/app", ADO_ORIGIN],
  ["ADO vs-ssh.visualstudio.com", "org@vs-ssh.visualstudio.com:v3/org/proj/app", ADO_ORIGIN],
];
const STRATEGIES = ["worktree", "branch", "hands-off"] as const;
const MATRIX = URL_FORMS.flatMap(([form, repoUrl, origin]) => STRATEGIES.map((strategy) => ({ form, repoUrl, origin, strategy })));
const BRANCH = "users/me/fix-auth";

describe("mapPrToWorkdir: every URL form × every strategy", () => {
  // One bare remote with main and the PR branch for the whole table; each case clones it once,
  // with origin spelled as the hosted URL (url.<bare>.insteadOf sends fetches to the bare repo).
  let source: Awaited<ReturnType<typeof createRepoWithRemote>>;
  beforeAll(async () => {
    source = await createRepoWithRemote();
    await source.git(["checkout", "-q", "-b", BRANCH]);
    await source.commit("PR work");
    await source.git(["push", "-q", "origin", BRANCH]);
  });
  afterAll(() => source.cleanup());

  it.each(MATRIX)("$form × $strategy: $repoUrl", async ({ repoUrl, origin, strategy }) => {
    const dir = path.join(tempDir(), "app");
    await git(["clone", "-q", "-c", `url.${source.remote}.insteadOf=${origin}`, origin, dir], path.dirname(dir));
    const config = { repos: [trackedRepo({ dir }, { git_strategy: strategy })] };
    const input = { repoUrl, branch: BRANCH, config, cwd: tempDir(), git: GIT };
    if (strategy === "worktree") {
      // Created on demand, then reused.
      const wt = path.join(`${dir}-wt`, "fix-auth");
      expect(await mapPrToWorkdir(input)).toMatchObject({ dir: wt, strategy, created: true, onBranch: true, remote: "origin" });
      expect(await currentBranch(wt, GIT)).toBe(BRANCH);
      expect(await git(["log", "-1", "--format=%s"], wt)).toBe("PR work");
      expect(await mapPrToWorkdir(input)).toMatchObject({ dir: wt, created: false, commands: [] });
    } else if (strategy === "branch") {
      // Fetched and checked out in the primary dir, tracking the remote branch.
      expect(await mapPrToWorkdir(input)).toMatchObject({ dir, strategy, created: false, onBranch: true });
      expect(await currentBranch(dir, GIT)).toBe(BRANCH);
      expect(await git(["rev-parse", "--abbrev-ref", `${BRANCH}@{upstream}`], dir)).toBe(`origin/${BRANCH}`);
    } else {
      // Found, but otto never switches branches: refused until the user checks the branch out.
      expect((await failure(mapPrToWorkdir(input))).code).toBe("hands_off_branch");
      await git(["checkout", "-q", BRANCH], dir);
      expect(await mapPrToWorkdir(input)).toMatchObject({ dir, strategy, created: false, onBranch: true, commands: [] });
    }
  });
});

describe("mapPrToWorkdir", () => {
  it("worktree strategy: the commands it ran are reported", async () => {
    const app = await hosted(GITHUB_ORIGIN);
    const mapped = await mapPrToWorkdir({
      repoUrl: "https://github.com/org/app",
      branch: BRANCH,
      config: { repos: [trackedRepo(app)] },
      cwd: tempDir(),
      git: GIT,
    });
    const dir = path.join(`${app.dir}-wt`, "fix-auth");
    expect(mapped.commands).toEqual([
      `git -C ${app.dir} fetch origin +refs/heads/${BRANCH}:refs/remotes/origin/${BRANCH}`,
      `git -C ${app.dir} worktree add --track -b ${BRANCH} ${dir} origin/${BRANCH}`,
    ]);
  });

  it("worktree strategy: a branch that does not follow branch_template gets a safe folder name; an existing local branch is reused", async () => {
    const app = await hosted("git@github.example.com:org/app.git", "dependabot/npm/lodash");
    const config = { repos: [trackedRepo(app)] };
    await app.git(["fetch", "-q", "origin", "dependabot/npm/lodash:dependabot/npm/lodash"]);
    const mapped = await mapPrToWorkdir({
      repoUrl: "https://github.example.com/org/app",
      branch: "dependabot/npm/lodash",
      config,
      cwd: tempDir(),
      git: GIT,
    });
    expect(mapped.dir).toBe(path.join(`${app.dir}-wt`, "dependabot-npm-lodash"));
    expect(mapped.commands[1]).toBe(`git -C ${app.dir} worktree add ${mapped.dir} dependabot/npm/lodash`);
  });

  it("worktree strategy: a worktree otto made earlier for the branch is used as it is", async () => {
    const app = await hosted("git@github.com:org/app.git");
    const repo = trackedRepo(app);
    const earlier = await addWorktree(repo, "fix-auth", GIT);
    const mapped = await mapPrToWorkdir({
      repoUrl: "https://github.com/org/app",
      branch: "users/me/fix-auth",
      config: { repos: [repo] },
      cwd: tempDir(),
      git: GIT,
    });
    expect(mapped).toMatchObject({ dir: earlier.dir, created: false, commands: [] });
  });

  it("worktree strategy: the target folder holding another branch is a conflict, not a silent reuse", async () => {
    const app = await hosted("git@github.com:org/app.git");
    const repo = trackedRepo(app);
    await addWorktree(repo, "fix-auth", GIT);
    await app.git(["-C", path.join(`${app.dir}-wt`, "fix-auth"), "checkout", "-q", "-b", "something-else"]);
    const error = await failure(
      mapPrToWorkdir({
        repoUrl: "https://github.com/org/app",
        branch: "users/me/fix-auth",
        config: { repos: [repo] },
        cwd: tempDir(),
        git: GIT,
      }),
    );
    expect(error.code).toBe("worktree_conflict");
  });

  it("branch strategy refuses a dirty primary dir with a clear message", async () => {
    const app = await hosted("git@github.com:org/app.git");
    fs.writeFileSync(path.join(app.dir, "README.md"), "local edit\n");
    const config = { repos: [trackedRepo(app, { git_strategy: "branch" })] };
    const error = await failure(
      mapPrToWorkdir({ repoUrl: "https://github.com/org/app", branch: "users/me/fix-auth", config, cwd: tempDir(), git: GIT }),
    );
    expect(error.code).toBe("worktree_dirty");
    expect(error.message).toContain(`Cannot check out 'users/me/fix-auth' in ${app.dir}: it has uncommitted changes on main`);
    expect(error.message).toContain(".M README.md");
    expect(error.fix).toContain("stash");
    expect(await currentBranch(app.dir, GIT)).toBe("main");
  });

  it("branch strategy: a branch missing on the remote says so", async () => {
    const app = await hosted("git@github.com:org/app.git");
    const config = { repos: [trackedRepo(app, { git_strategy: "branch" })] };
    const error = await failure(
      mapPrToWorkdir({ repoUrl: "https://github.com/org/app", branch: "deleted", config, cwd: tempDir(), git: GIT }),
    );
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
    const mapped = await mapPrToWorkdir({
      repoUrl: "https://github.com/org/app",
      branch: "users/me/fix-auth",
      config: { repos: [] },
      cwd: path.join(app.dir, "src"),
      git: GIT,
    });
    expect(mapped).toMatchObject({ dir: app.dir, strategy: "cwd", repo: undefined, onBranch: false, created: false });
  });

  it("finds the repo by another remote than origin (a fork setup)", async () => {
    const app = await hosted("git@github.com:me/app.git");
    await app.git(["remote", "add", "upstream", "git@github.com:org/app.git"]);
    const mapped = await mapPrToWorkdir({
      repoUrl: "https://github.com/org/app",
      branch: "x",
      config: { repos: [trackedRepo(app, { git_strategy: "hands-off" })] },
      cwd: tempDir(),
      git: GIT,
    }).catch((e: unknown) => e);
    expect(isOttoError(mapped) && mapped.code).toBe("hands_off_branch");
  });

  it("a hung fetch is stopped at the timeout, the error names the command, and nothing is created", async () => {
    const app = await hosted("git@github.com:org/app.git");
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    const fake = fakeGit(`if [ "$1" = fetch ]; then sleep 30; fi\nexec '${realGit}' "$@"`);
    const started = Date.now();
    const error = await failure(
      mapPrToWorkdir({
        repoUrl: "https://github.com/org/app",
        branch: "users/me/fix-auth",
        config: { repos: [trackedRepo(app)] },
        cwd: tempDir(),
        git: { env: fake.env, timeouts: { write: 300 } },
      }),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.code).toBe("git_timeout");
    expect(error.message).toContain(`git -C ${app.dir} fetch origin +refs/heads/users/me/fix-auth`);
    expect(fs.existsSync(`${app.dir}-wt`)).toBe(false);
  });

  it("no match: repo_not_found; never clones", async () => {
    const app = await hosted("git@github.com:org/app.git");
    const cwd = tempDir();
    const error = await failure(
      mapPrToWorkdir({ repoUrl: "https://github.com/org/other", branch: "x", config: { repos: [trackedRepo(app)] }, cwd, git: GIT }),
    );
    expect(error.code).toBe("repo_not_found");
    expect(error.message).toBe(
      "Cannot find local repo for https://github.com/org/other. Add it with /otto-repo add or run from within the repo.",
    );
    expect(fs.readdirSync(cwd)).toEqual([]);
    expect((await failure(mapPrToWorkdir({ repoUrl: "not a url", branch: "x", config: { repos: [] }, cwd, git: GIT }))).code).toBe(
      "repo_url",
    );
  });
});
