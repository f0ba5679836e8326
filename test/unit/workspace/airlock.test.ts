import { execFileSync } from "node:child_process";
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
 * (inside, its log is read-only), the directory each git starts in, the token it sees, GIT_DIR and
 * GIT_WORK_TREE, and every argument: a git that reads the tree by path (`-C`, `--git-dir`,
 * `--work-tree`, GIT_DIR) from another directory counts as in the tree.
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
  // One line per call: fields separated by the unit separator (0x1f), arguments last, newlines in them as spaces.
  fs.writeFileSync(
    wrapper,
    [
      "#!/bin/sh",
      `{ printf 'cwd=%s\\037token=[%s]\\037GIT_DIR=%s\\037GIT_WORK_TREE=%s' "$(pwd -P)" "$GITHUB_TOKEN" "$GIT_DIR" "$GIT_WORK_TREE"`,
      `  for a in "$@"; do printf '\\037%s' "$a" | tr '\\n' ' '; done; echo; } >> '${log}' 2>/dev/null`,
      'exec git "$@"',
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
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

/** One git call the wrapper saw. */
interface Call {
  cwd: string;
  token: string;
  gitDir: string;
  workTree: string;
  args: string[];
}

const calls = (log: string): Call[] =>
  (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean) : []).map((line) => {
    const [cwd = "", token = "", gitDir = "", workTree = "", ...args] = line.split("\x1f");
    const value = (field: string) => field.slice(field.indexOf("=") + 1);
    return { cwd: value(cwd), token: value(token).slice(1, -1), gitDir: value(gitDir), workTree: value(workTree), args };
  });

/**
 * The directories a call reads as a repository or work tree: where it starts, GIT_DIR and
 * GIT_WORK_TREE, and the global options before its command (`-C` relative to the one before it,
 * `--git-dir`, `--work-tree`, with `=` or apart). Relative paths are resolved as git would.
 */
function targets(call: Call): string[] {
  let at = call.cwd;
  const out = [at];
  const add = (p: string) => out.push(path.resolve(at, p));
  if (call.gitDir) add(call.gitDir);
  if (call.workTree) add(call.workTree);
  for (let i = 0; i < call.args.length; i++) {
    const arg = call.args[i] ?? "";
    const next = call.args[i + 1] ?? "";
    if (arg === "-C") {
      at = path.resolve(at, next);
      out.push(at);
      i++;
    } else if (arg === "--git-dir" || arg === "--work-tree") {
      add(next);
      i++;
    } else if (arg.startsWith("--git-dir=") || arg.startsWith("--work-tree=")) add(arg.slice(arg.indexOf("=") + 1));
    else if (arg === "-c" || arg === "--exec-path" || arg === "--namespace") i++;
    else if (!arg.startsWith("-")) break;
  }
  return out;
}

const real = (p: string): string => {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
};
const inTree = (repo: Repo) => (call: Call) => {
  const root = fs.realpathSync(repo.dir);
  return targets(call).some((t) => {
    const dir = real(t);
    return dir === root || dir.startsWith(`${root}/`);
  });
};
const withToken = (call: Call) => call.token === TOKEN;
const commandOf = (call: Call) => call.args.find((a, i) => !a.startsWith("-") && !["-C", "-c"].includes(call.args[i - 1] ?? ""));

describe.skipIf(detectSandbox().kind === "none")("the airlock: network git for a tree sandboxed code held", () => {
  it("fetch, push and ls-remote leave the tree as direct commands would, and no git with the token runs in the tree", async () => {
    const { env, wrapper, log } = setup();
    const repo = await repoWithRemote();
    const gitEnvOf = { env, binary: wrapper };

    // Positive control: before sandboxed code held the tree, otto's fetch runs in it with the token.
    await fetchBranch(repo.dir, "origin", "main", { git: gitEnvOf });
    expect(
      calls(log)
        .filter(inTree(repo))
        .some((c) => withToken(c) && commandOf(c) === "fetch"),
    ).toBe(true);
    fs.rmSync(log);
    // The log sees a git that reads the tree by path from elsewhere: -C, --git-dir, --work-tree, GIT_DIR.
    const elsewhere = path.dirname(wrapper);
    const dotGit = path.join(repo.dir, ".git");
    for (const [args, extra] of [
      [["-c", "core.pager=cat", "-C", repo.dir, "status", "--short"], {}],
      [["-C", path.dirname(repo.dir), "-C", path.basename(repo.dir), "status", "--short"], {}],
      [[`--git-dir=${dotGit}`, "rev-parse", "HEAD"], {}],
      [["--git-dir", dotGit, "--work-tree", repo.dir, "status", "--short"], {}],
      [["rev-parse", "HEAD"], { GIT_DIR: dotGit }],
    ] as Array<[string[], Record<string, string>]>) {
      execFileSync(wrapper, args, { cwd: elsewhere, env: { ...env, ...extra } });
    }
    const byPath = calls(log);
    expect(byPath).toHaveLength(5);
    for (const call of byPath) {
      expect(call.cwd).toBe(fs.realpathSync(elsewhere));
      expect(inTree(repo)(call), call.args.join(" ")).toBe(true);
    }
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

    // Every git that saw the token ran outside the tree (in otto's own directory, or in none), and
    // none named the tree as its repository or work tree (-C, --git-dir, --work-tree, GIT_DIR).
    const seen = calls(log);
    expect(seen.filter(withToken).length).toBeGreaterThan(0);
    expect(seen.filter((c) => withToken(c) && inTree(repo)(c)).map((c) => [c.cwd, c.gitDir, ...c.args].join(" "))).toEqual([]);
    // The tree's path in an argument: only otto's read of the tree's config as data (no includes, nothing run).
    const root = fs.realpathSync(repo.dir);
    const namesTree = (c: Call) =>
      c.args.some((a) => [a, a.slice(a.indexOf("=") + 1)].some((p) => real(p) === root || real(p).startsWith(`${root}/`)));
    const reads = seen.filter((c) => withToken(c) && namesTree(c)).map((c) => c.args.join(" "));
    expect(reads.length).toBeGreaterThan(0);
    expect(new Set(reads)).toEqual(new Set([`config --file ${path.join(root, ".git", "config")} --null --list`]));
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
