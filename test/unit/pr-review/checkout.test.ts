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

const pr = (branch = "feature/x"): PrInfo => ({ provider: "github", repo: "octo/app", number: 9, url: `${URL}/pull/9`, title: "X", state: "open", draft: false, sourceBranch: branch, targetBranch: "main", headSha: "", author: "dev", createdAt: "", meta: {} });

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
    await expect(checkoutPr({ pr: pr("gone"), repos: [], cwd: app.dir, env: gitEnv(), log: silentLogger, tempRoot })).rejects.toMatchObject({ code: "pr_branch_missing" });
    expect(fs.readdirSync(tempRoot)).toEqual([]);
  });

  it("a tracked repo uses its strategy and is kept", async () => {
    const app = await hostedClone();
    const checkout = await checkoutPr({ pr: pr(), repos: [trackedRepo(app, { git_strategy: "branch" })], cwd: tempDir(), env: gitEnv(), log: silentLogger });
    expect(checkout).toMatchObject({ dir: app.dir, temporary: false });
    expect(await app.git(["branch", "--show-current"])).toBe("feature/x");
    await checkout.release();
    expect(fs.existsSync(path.join(app.dir, "x.ts"))).toBe(true);
  });

  it("refuses a PR from a fork, whose branch no clone of the repository has", async () => {
    await expect(checkoutPr({ pr: { ...pr(), fork: true, headRepo: "someone/app" }, repos: [], cwd: tempDir(), env: gitEnv(), log: silentLogger })).rejects.toMatchObject({ code: "pr_review_fork", message: expect.stringContaining("(someone/app)") as unknown });
  });

  it("refuses when no local clone matches", async () => {
    await expect(checkoutPr({ pr: pr(), repos: [], cwd: tempDir(), env: gitEnv(), log: silentLogger })).rejects.toMatchObject({ code: "repo_not_found" });
  });
});
