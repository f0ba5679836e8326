import { execa } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { commitChanges, runGit, snapshotTree, type GitRun } from "../../../src/workspace/index.ts";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
  GITHUB_TOKEN: "ghp_hookMustNotSeeThis0123456789abcdef",
};
const git: GitRun = (args, options) => runGit(args, { ...options, env });

/** A repository whose pre-commit hook (husky 9's layout) records that it ran, what it saw, and tries to write outside the tree. */
async function repoWithHook(outside: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-hooks-"));
  await git(["init", "-q", "-b", "main"], { cwd: dir });
  fs.mkdirSync(path.join(dir, ".husky", "_"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".husky", "_", "pre-commit"), '#!/bin/sh\nsh "$(dirname "$0")/../pre-commit"\n', { mode: 0o755 });
  fs.writeFileSync(
    path.join(dir, ".husky", "pre-commit"),
    `echo "ran token=[$GITHUB_TOKEN]" > hook-ran.txt\necho x > ${outside}/planted.txt\nexit 0\n`,
  );
  // A worktree add runs post-checkout: it records that it ran outside the tree, where a second worktree cannot hide it.
  fs.writeFileSync(path.join(dir, ".husky", "_", "post-checkout"), `#!/bin/sh\necho ran >> ${outside}/post-checkout-ran.txt\n`, {
    mode: 0o755,
  });
  await git(["config", "core.hooksPath", ".husky/_"], { cwd: dir });
  await git(["add", "-A"], { cwd: dir });
  await git(["commit", "-q", "--no-verify", "-m", "init"], { cwd: dir });
  return dir;
}

describe("otto's commits and the repository's hooks", () => {
  // Outside /tmp (the sandbox's private temp): a write there is refused on its own merits.
  const cacheDir = path.join(REPO_ROOT, "node_modules", ".cache");
  fs.mkdirSync(cacheDir, { recursive: true });
  const outside = fs.mkdtempSync(path.join(cacheDir, "otto-hooks-outside-"));
  afterAll(() => fs.rmSync(outside, { recursive: true, force: true }));

  it("run no hook by default (git.hooks: skip), whatever the hooks path says", async () => {
    const dir = await repoWithHook(outside);
    fs.writeFileSync(path.join(dir, "a.txt"), "a\n");
    const baseline = await snapshotTree(git, dir);
    fs.writeFileSync(path.join(dir, "b.txt"), "b\n");
    const result = await commitChanges(git, dir, { message: "otto's commit", baseline });
    expect(result.sha).toBeTruthy();
    expect(fs.existsSync(path.join(dir, "hook-ran.txt"))).toBe(false);
    // A rebase, a merge or a worktree add of otto's run none either: the repository's post-checkout does not run.
    const ran = path.join(outside, "post-checkout-ran.txt");
    fs.rmSync(ran, { force: true });
    const hooks = await runGit(["worktree", "add", "-q", "--detach", path.join(dir, "..", `${path.basename(dir)}-wt`)], { cwd: dir, env });
    expect(hooks.exitCode).toBe(0);
    expect(fs.existsSync(ran)).toBe(false);
    expect(fs.existsSync(path.join(outside, "planted.txt"))).toBe(false);
    // The hook works: plain git's worktree add runs it, so the check above can fail.
    await execa("git", ["worktree", "add", "-q", "--detach", path.join(dir, "..", `${path.basename(dir)}-wt2`)], { cwd: dir, env });
    expect(fs.readFileSync(ran, "utf8")).toBe("ran\n");
    fs.rmSync(ran, { force: true });
  });

  it.skipIf(detectSandbox().kind === "none")(
    "git.hooks: run runs them in the sandbox: the tree writable, no token, nothing outside",
    async () => {
      const dir = await repoWithHook(outside);
      const baseline = await snapshotTree(git, dir);
      fs.writeFileSync(path.join(dir, "b.txt"), "b\n");
      const result = await commitChanges(git, dir, { message: "otto's commit", baseline, hooks: { sandbox: "required", env } });
      expect(result.sha).toBeTruthy();
      expect(fs.readFileSync(path.join(dir, "hook-ran.txt"), "utf8")).toBe("ran token=[]\n");
      expect(fs.existsSync(path.join(outside, "planted.txt"))).toBe(false);
      const log = await git(["log", "--format=%s", "-1"], { cwd: dir });
      expect(log.stdout.trim()).toBe("otto's commit");
    },
  );

  it.skipIf(detectSandbox().kind === "none")("git.hooks: run gives the hooks the user's sandbox_access, as the checks get it", async () => {
    const dir = await repoWithHook(outside);
    const config = fs.mkdtempSync(path.join(os.tmpdir(), "otto-hooks-config-"));
    fs.mkdirSync(path.join(config, "otto"));
    fs.writeFileSync(path.join(config, "otto", "otto.jsonc"), JSON.stringify({ sandbox_access: { allow_write: [outside] } }));
    const baseline = await snapshotTree(git, dir);
    fs.writeFileSync(path.join(dir, "b.txt"), "b\n");
    const result = await commitChanges(git, dir, {
      message: "otto's commit",
      baseline,
      hooks: { sandbox: "required", env: { ...env, XDG_CONFIG_HOME: config } },
    });
    expect(result.sha).toBeTruthy();
    // The hook's write outside the tree lands in the folder the user allowed (without it, it does not: the test above).
    expect(fs.readFileSync(path.join(outside, "planted.txt"), "utf8")).toBe("x\n");
    fs.rmSync(path.join(outside, "planted.txt"));
    fs.rmSync(config, { recursive: true, force: true });
  });
});
