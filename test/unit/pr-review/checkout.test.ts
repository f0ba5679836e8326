import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/index.ts";
import type { PrInfo } from "../../../src/pr/index.ts";
import { checkoutPr } from "../../../src/pr-review/index.ts";
import { git, gitEnv } from "../../support/git.ts";
import { clone, tempDir, trackedRepo } from "../repo/fixtures.ts";

const URL = "https://github.com/octo/app";

/** A clone on main whose origin is spelled like GitHub, with a PR branch `feature/x` on the remote. */
async function hostedClone() {
  const app = await clone();
  await app.git(["checkout", "-q", "-b", "feature/x"]);
  fs.writeFileSync(path.join(app.dir, "x.ts"), "export const x = 1;\n");
  await app.git(["add", "x.ts"]);
  await app.git(["-c", "user.name=o", "-c", "user.email=o@example.invalid", "commit", "-q", "-m", "x"]);
  await app.git(["push", "-q", "origin", "feature/x"]);
  await app.git(["checkout", "-q", "main"]);
  await app.git(["branch", "-q", "-D", "feature/x"]);
  await app.git(["remote", "set-url", "origin", URL]);
  await app.git(["config", `url.${app.remote}.insteadOf`, URL]);
  return app;
}

const pr = (branch = "feature/x"): PrInfo => ({
  provider: "github",
  repo: "octo/app",
  number: 9,
  url: `${URL}/pull/9`,
  title: "X",
  state: "open",
  draft: false,
  sourceBranch: branch,
  targetBranch: "main",
  headSha: "",
  author: "dev",
  createdAt: "",
  meta: {},
});

describe("checkoutPr", () => {
  it("a clone found in the current directory: a temporary detached worktree, removed by release", async () => {
    const app = await hostedClone();
    const tempRoot = tempDir();
    const checkout = await checkoutPr({ pr: pr(), repos: [], cwd: app.dir, env: gitEnv(), log: silentLogger, tempRoot });
    expect(checkout).toMatchObject({ temporary: true, remote: "origin" });
    expect(checkout.dir.startsWith(tempRoot)).toBe(true);
    expect(fs.readFileSync(path.join(checkout.dir, "x.ts"), "utf8")).toContain("x = 1");
    expect(await git(["diff", "--name-only", "origin/main...HEAD"], checkout.dir)).toBe("x.ts");
    // The user's checkout is untouched: still on main, no local PR branch.
    expect(await app.git(["branch", "--show-current"])).toBe("main");
    expect(await app.git(["branch", "--list", "feature/x"])).toBe("");
    await checkout.release();
    expect(fs.readdirSync(tempRoot)).toEqual([]);
    expect((await app.git(["worktree", "list", "--porcelain"])).split("\n").filter((l) => l.startsWith("worktree "))).toHaveLength(1);
  });

  it("a missing branch fails before anything is created", async () => {
    const app = await hostedClone();
    const tempRoot = tempDir();
    await expect(checkoutPr({ pr: pr("gone"), repos: [], cwd: app.dir, env: gitEnv(), log: silentLogger, tempRoot })).rejects.toMatchObject(
      { code: "pr_branch_missing" },
    );
    expect(fs.readdirSync(tempRoot)).toEqual([]);
  });

  it("a tracked repo uses its strategy and is kept", async () => {
    const app = await hostedClone();
    const checkout = await checkoutPr({
      pr: pr(),
      repos: [trackedRepo(app, { git_strategy: "branch" })],
      cwd: tempDir(),
      env: gitEnv(),
      log: silentLogger,
    });
    expect(checkout).toMatchObject({ dir: app.dir, temporary: false });
    expect(await app.git(["branch", "--show-current"])).toBe("feature/x");
    await checkout.release();
    expect(fs.existsSync(path.join(app.dir, "x.ts"))).toBe(true);
  });

  it("a GitHub PR from a fork: its refs/pull/<n>/head in a temporary worktree, even in a tracked repo, removed by release", async () => {
    const app = await hostedClone();
    // GitHub keeps a fork PR's head on the base repository as refs/pull/<n>/head; the branch itself is not there.
    await app.git(["fetch", "-q", "origin", "feature/x"]);
    await app.git(["push", "-q", "origin", "FETCH_HEAD:refs/pull/9/head", ":refs/heads/feature/x"]);
    const fork: PrInfo = { ...pr("patch-1"), fork: true, headRepo: "someone/app" };
    const checkout = await checkoutPr({
      pr: fork,
      repos: [trackedRepo(app, { git_strategy: "branch" })],
      cwd: tempDir(),
      env: gitEnv(),
      log: silentLogger,
    });
    expect(checkout).toMatchObject({
      temporary: true,
      remote: "origin",
      how: expect.stringContaining("refs/pull/9/head, from someone/app") as unknown,
    });
    expect(fs.readFileSync(path.join(checkout.dir, "x.ts"), "utf8")).toBe("export const x = 1;\n");
    // The diff base is fetched too, and the user's checkout and branches are untouched.
    expect(await git(["rev-parse", "--verify", "origin/main"], checkout.dir)).toMatch(/^[0-9a-f]{40}$/);
    expect(await app.git(["branch", "--show-current"])).toBe("main");
    expect(await app.git(["branch", "--list", "patch-1"])).toBe("");
    await checkout.release();
    expect(fs.existsSync(checkout.dir)).toBe(false);
    expect(await app.git(["for-each-ref", "refs/otto"])).toBe("");
  });

  it("refuses an Azure DevOps PR from a fork, and a fork PR without a local clone", async () => {
    const ado: PrInfo = { ...pr(), provider: "ado", fork: true, headRepo: "someone/app" };
    await expect(checkoutPr({ pr: ado, repos: [], cwd: tempDir(), env: gitEnv(), log: silentLogger })).rejects.toMatchObject({
      code: "pr_review_fork",
      message: expect.stringContaining("of someone/app") as unknown,
    });
    await expect(
      checkoutPr({ pr: { ...pr(), fork: true }, repos: [], cwd: tempDir(), env: gitEnv(), log: silentLogger }),
    ).rejects.toMatchObject({ code: "repo_not_found" });
  });

  it("refuses when no local clone matches", async () => {
    await expect(checkoutPr({ pr: pr(), repos: [], cwd: tempDir(), env: gitEnv(), log: silentLogger })).rejects.toMatchObject({
      code: "repo_not_found",
    });
  });
});
