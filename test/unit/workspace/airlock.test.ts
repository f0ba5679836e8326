import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { fetchBranch, pushBranch, runCheck, runGit } from "../../../src/workspace/index.ts";
import { createRepo, git, gitEnv, type Repo } from "../../support/git.ts";

/*
 * The airlock (src/workspace/airlock.ts): in a tree sandboxed code held, otto's fetch, push and
 * ls-remote leave the tree as a direct command would, and no git that has the user's token runs
 * in the tree or its git directory. A wrapper in place of git logs, outside the sandbox only
 * (inside, its log is read-only), the directory each git starts in and the token it sees.
 */

const TOKEN = "ghp_airlockTokenValue0123456789abcdef";
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup(): { env: Record<string, string>; wrapper: string; log: string } {
  const cache = path.join(os.homedir(), ".cache");
  fs.mkdirSync(cache, { recursive: true });
  const outside = fs.mkdtempSync(path.join(cache, "otto-test-airlock-"));
  cleanups.push(() => fs.rmSync(outside, { recursive: true, force: true }));
  const home = path.join(outside, "home");
  fs.mkdirSync(home);
  const log = path.join(outside, "git.log");
  const wrapper = path.join(outside, "git");
  fs.writeFileSync(wrapper, `#!/bin/sh\n(echo "$(pwd -P) token=[$GITHUB_TOKEN] $1" >> '${log}') 2>/dev/null\nexec git "$@"\n`, {
    mode: 0o755,
  });
  return { env: { ...gitEnv({ HOME: home }), GITHUB_TOKEN: TOKEN }, wrapper, log };
}

async function repoWithRemote(): Promise<Repo> {
  const repo = await createRepo();
  cleanups.push(() => repo.cleanup());
  return repo;
}

/** A commit another person pushed to the remote's `branch`. */
async function pushedElsewhere(repo: Repo, branch: string, file: string): Promise<string> {
  const other = fs.mkdtempSync(path.join(os.tmpdir(), "otto-airlock-other-"));
  cleanups.push(() => fs.rmSync(other, { recursive: true, force: true }));
  await git(["clone", "-q", repo.remote, other], os.tmpdir());
  await git(["checkout", "-q", `origin/${branch}`], other).catch(() => undefined);
  fs.writeFileSync(path.join(other, file), `${file}\n`);
  await git(["add", "-A"], other);
  await git(["-c", "user.name=o", "-c", "user.email=o@example.invalid", "commit", "-qm", file], other);
  await git(["push", "-q", "origin", `HEAD:refs/heads/${branch}`], other);
  return git(["rev-parse", "HEAD"], other);
}

const lines = (log: string): string[] => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean) : []);
const inTree = (repo: Repo) => (line: string) => {
  const dir = line.slice(0, line.indexOf(" token="));
  const root = fs.realpathSync(repo.dir);
  return dir === root || dir.startsWith(`${root}/`);
};

describe.skipIf(detectSandbox().kind === "none")("the airlock: network git for a tree sandboxed code held", () => {
  it("fetch, push and ls-remote leave the tree as direct commands would, and no git with the token runs in the tree", async () => {
    const { env, wrapper, log } = setup();
    const repo = await repoWithRemote();
    const gitEnvOf = { env, binary: wrapper };

    // Positive control: before sandboxed code held the tree, otto's fetch runs in it with the token.
    await fetchBranch(repo.dir, "origin", "main", { git: gitEnvOf });
    expect(
      lines(log)
        .filter(inTree(repo))
        .some((l) => l.includes(`token=[${TOKEN}] fetch`)),
    ).toBe(true);
    fs.rmSync(log);

    expect((await runCheck("true", { cwd: repo.dir, sandbox: "auto", env, timeoutMs: 30_000 })).passed).toBe(true);

    // fetch: the moved branch reaches the tree's remote-tracking ref.
    const moved = await pushedElsewhere(repo, "main", "moved.txt");
    await fetchBranch(repo.dir, "origin", "main", { git: gitEnvOf });
    expect(await repo.git(["rev-parse", "refs/remotes/origin/main"])).toBe(moved);

    // push: the tree's commit reaches the remote, and the tree's remote-tracking ref follows.
    fs.writeFileSync(path.join(repo.dir, "fix.txt"), "fix\n");
    await repo.git(["add", "fix.txt"]);
    await repo.git(["commit", "-qm", "fix"]);
    const head = await repo.git(["rev-parse", "HEAD"]);
    const pushed = await pushBranch({ dir: repo.dir, remote: "origin", branch: "otto/fix" }, gitEnvOf);
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect(await repo.gitRemote(["rev-parse", "refs/heads/otto/fix"])).toBe(head);
    expect(await repo.git(["rev-parse", "refs/remotes/origin/otto/fix"])).toBe(head);

    // ls-remote answers from otto's own directory.
    const listed = await runGit(["ls-remote", "origin", "refs/heads/otto/fix"], { cwd: repo.dir, ...gitEnvOf });
    expect(listed.stdout).toContain(head);

    // A push the remote refuses (the branch moved) is still a rejection, never forced.
    await pushedElsewhere(repo, "otto/fix", "theirs.txt");
    fs.writeFileSync(path.join(repo.dir, "more.txt"), "more\n");
    await repo.git(["add", "more.txt"]);
    await repo.git(["commit", "-qm", "more"]);
    const rejected = await pushBranch({ dir: repo.dir, remote: "origin", branch: "otto/fix" }, gitEnvOf);
    expect(rejected.rejected).toBe(true);
    expect(await repo.gitRemote(["log", "-1", "--format=%s", "refs/heads/otto/fix"])).toBe("theirs.txt");

    // Every git that saw the token ran outside the tree (in otto's own directory, or in none).
    const seen = lines(log);
    expect(seen.filter((l) => l.includes(`token=[${TOKEN}]`)).length).toBeGreaterThan(0);
    expect(seen.filter((l) => l.includes(`token=[${TOKEN}]`) && inTree(repo)(l))).toEqual([]);
  });

  it("a branch the remote does not have is still named as missing", async () => {
    const { env } = setup();
    const repo = await repoWithRemote();
    expect((await runCheck("true", { cwd: repo.dir, sandbox: "auto", env, timeoutMs: 30_000 })).passed).toBe(true);
    const error = await fetchBranch(repo.dir, "origin", "gone", { git: { env } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isOttoError(error) && error.code).toBe("pr_branch_missing");
  });

  it("the push carries what the tree's HEAD names, read from the bundle made in the sandbox", async () => {
    const { env } = setup();
    const repo = await repoWithRemote();
    expect((await runCheck("true", { cwd: repo.dir, sandbox: "auto", env, timeoutMs: 30_000 })).passed).toBe(true);
    // Three commits the remote has never seen, one of them large: the bundle's bytes cross intact.
    for (const n of [1, 2, 3]) {
      fs.writeFileSync(path.join(repo.dir, `f${n}.bin`), Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * n) % 256)));
      await repo.git(["add", "-A"]);
      await repo.git(["commit", "-qm", `c${n}`]);
    }
    const pushed = await pushBranch({ dir: repo.dir, remote: "origin", branch: "otto/many" }, { env });
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect(await repo.gitRemote(["rev-parse", "refs/heads/otto/many"])).toBe(await repo.git(["rev-parse", "HEAD"]));
    expect(await repo.gitRemote(["rev-list", "--count", "refs/heads/otto/many"])).toBe("4");
  });
});
