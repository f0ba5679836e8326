import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { addTemporaryWorktree, commitAll, runCheck, runGit, snapshotTree, type TemporaryWorktree } from "../../../src/workspace/index.ts";
import { developerHome } from "../../support/dev-home.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";

/*
 * Otto's temporary worktree shares its common git directory with the user's checkout. Code
 * sandboxed there (a fork PR's tests in the review loop, a fix in a dirty checkout) must not move
 * the user's branches, HEAD or index; otto's own detached commit there still works.
 */

const sandboxed = detectSandbox(process.env).kind === "bwrap";
let repo: Repo | undefined;
let wt: TemporaryWorktree | undefined;
let cleanups: Array<() => void> = [];
afterEach(async () => {
  await wt?.release();
  wt = undefined;
  repo?.cleanup();
  repo = undefined;
  for (const c of cleanups) c();
  cleanups = [];
});

describe.skipIf(!sandboxed)("a temporary worktree's shared git directory (real bubblewrap)", () => {
  it("sandboxed code there cannot move the user's main, HEAD or index; otto's detached commit there lands", async () => {
    const dev = developerHome();
    cleanups.push(() => dev.cleanup());
    const env: Record<string, string> = { ...gitEnv(), ...dev.env };
    delete env.GIT_CONFIG_GLOBAL;
    repo = await createRepo({ dir: path.join(dev.root, "project") });
    const main = await repo.git(["rev-parse", "main"]);
    const common = path.join(repo.dir, ".git");
    const headBefore = fs.readFileSync(path.join(common, "HEAD"), "utf8");
    wt = await addTemporaryWorktree({ repoDir: repo.dir, remote: "origin", branch: "main", env, label: "otto-test", tempRoot: dev.root });
    const attack = [
      "git commit -q --allow-empty -m evil",
      `git update-ref refs/heads/main HEAD; echo "ref=$?" >> tried.txt`,
      `echo 'ref: refs/heads/evil' > '${common}/HEAD'; echo "head=$?" >> tried.txt`,
      `git -C '${repo.dir}' --git-dir='${common}' branch -f main HEAD; echo "branch=$?" >> tried.txt`,
      "true",
    ].join("; ");
    const result = await runCheck(attack, { cwd: wt.dir, sandbox: "auto", env, timeoutMs: 60_000 });
    expect(result.passed, result.output).toBe(true);
    // Positive control: every step ran (and failed).
    const tried = fs.readFileSync(path.join(wt.dir, "tried.txt"), "utf8");
    expect(tried).toMatch(/ref=[1-9]/);
    expect(tried).toMatch(/head=[1-9]/);
    expect(tried).toMatch(/branch=[1-9]/);
    expect(await repo.git(["rev-parse", "main"])).toBe(main);
    expect(fs.readFileSync(path.join(common, "HEAD"), "utf8")).toBe(headBefore);

    // Otto's own commit in the temporary worktree (boxed, detached) still works.
    const git = (args: string[], o: { cwd: string; input?: string }) => runGit(args, { ...o, env });
    const baseline = await snapshotTree(git, wt.dir);
    fs.writeFileSync(path.join(wt.dir, "fix.txt"), "fix\n");
    const commit = await commitAll(git, wt.dir, "fix: it", { baseline });
    expect(commit.sha).toMatch(/^[0-9a-f]{7,}$/);
    expect(await repo.git(["rev-parse", "main"])).toBe(main);
  });
});
