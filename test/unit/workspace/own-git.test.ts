import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { treePaths } from "../../../src/workspace/git.ts";
import { checkTreeLayout, forgetTreeLayout, heldSandbox } from "../../../src/workspace/tree-layout.ts";
import {
  changesSince,
  commitAll,
  commitAndPush,
  fetchBranch,
  gitEnvironment,
  runCheck,
  runGit,
  snapshotGitControl,
  snapshotTree,
} from "../../../src/workspace/index.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";

/*
 * Otto's own git runs outside the sandbox with the user's credentials: nothing a tree configures
 * (a nested repository, a redirected git directory, a hook) may make it run a program or widen the
 * sandbox. Each case first shows the hostile step firing with plain git (the positive control),
 * then that otto's functions leave no marker. Markers and fake homes live outside /tmp, which the
 * sandbox replaces with an empty folder.
 */

const IDENTITY = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };

let repo: Repo | undefined;
let outside: string | undefined;
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
  if (outside) fs.rmSync(outside, { recursive: true, force: true });
  outside = undefined;
});

function setup(): { marker: string; script: string; home: string; env: Record<string, string> } {
  const cache = path.join(os.homedir(), ".cache");
  fs.mkdirSync(cache, { recursive: true });
  outside = fs.mkdtempSync(path.join(cache, "otto-test-outside-"));
  const marker = path.join(outside, "ran");
  const script = path.join(outside, "hostile.sh");
  fs.writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> '${marker}'\nexit 1\n`, { mode: 0o755 });
  const home = path.join(outside, "home");
  fs.mkdirSync(home);
  return { marker, script, home, env: gitEnv({ ...IDENTITY, HOME: home }) };
}

/** Plain git, without otto's runner: the positive control. */
function plainGit(args: string[], cwd: string, env: Record<string, string>): string {
  const result = spawnSync("git", args, { cwd, env, encoding: "utf8" });
  return result.stdout + result.stderr;
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string; fix?: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isOttoError(error)) throw new Error(`expected an OttoError, got ${String(error)}`);
  return error;
}

describe("otto's own git: the hardened configuration", () => {
  it("every command gets no fsmonitor, no hooks, no pager, no ext:: helper, no replace refs, no submodule recursion, no signing and no autostash or moved branches, after what the environment passes", () => {
    const env = gitEnvironment({ PATH: "/bin", GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "user.name", GIT_CONFIG_VALUE_0: "u" });
    const entries: Record<string, string | undefined> = {};
    for (let i = 0; i < Number(env.GIT_CONFIG_COUNT); i++) entries[env[`GIT_CONFIG_KEY_${i}`] ?? ""] = env[`GIT_CONFIG_VALUE_${i}`];
    expect(entries).toEqual({
      "user.name": "u",
      "core.fsmonitor": "false",
      "core.hooksPath": "/dev/null",
      "submodule.recurse": "false",
      "core.pager": "cat",
      "protocol.ext.allow": "never",
      "core.useReplaceRefs": "false",
      "commit.gpgSign": "false",
      "tag.gpgSign": "false",
      "rebase.autoStash": "false",
      "merge.autoStash": "false",
      "rebase.updateRefs": "false",
    });
    expect(env.GIT_PAGER).toBe("cat");
    // The commit's hooks with git.hooks "run" (inside the sandbox) keep the repository's hooks path.
    const hooked = gitEnvironment({}, { hooks: true });
    const keys = Array.from({ length: Number(hooked.GIT_CONFIG_COUNT) }, (_, i) => hooked[`GIT_CONFIG_KEY_${i}`]);
    expect(keys).not.toContain("core.hooksPath");
    expect(keys).toContain("core.fsmonitor");
  });

  it("a replace ref does not show otto another commit than the one it would push", async () => {
    const { env } = setup();
    repo = await createRepo({ remote: false });
    const innocent = await repo.commit("innocent", { "notes.txt": "notes\n" });
    await repo.git(["reset", "-q", "--hard", "HEAD~1"]);
    const leaking = await repo.commit("leak", { ".env": "TOKEN=x\n" });
    await repo.git(["replace", leaking, innocent]);
    // Positive control: plain git now shows the innocent commit under the leaking one's id.
    expect(plainGit(["show", "--name-only", "--format=", leaking], repo.dir, env).trim()).toBe("notes.txt");
    const shown = await runGit(["show", "--name-only", "--format=", leaking], { cwd: repo.dir, env });
    expect(shown.stdout.trim()).toBe(".env");
  });

  it("a diff runs no external diff driver and no textconv filter the repository configures", async () => {
    const { marker, script, env } = setup();
    repo = await createRepo({ remote: false, files: { "a.txt": "a\n" } });
    await repo.git(["config", "diff.external", script]);
    await repo.git(["config", "diff.evil.textconv", script]);
    fs.writeFileSync(path.join(repo.dir, ".gitattributes"), "*.txt diff=evil\n");
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "b\n");
    plainGit(["diff"], repo.dir, env);
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(marker);

    for (const args of [["diff"], ["diff", "HEAD", "--stat"], ["log", "-p"], ["show", "HEAD"]]) {
      const result = await runGit(args, { cwd: repo.dir, env });
      expect(result.exitCode).toBe(0);
    }
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe("otto's own git: a nested repository", () => {
  it("git status of a tree with a nested repository (added or not) runs nothing of it, and no commit takes it", async () => {
    const { marker, script, env } = setup();
    repo = await createRepo({ remote: false });
    const git = (args: string[], o: { cwd: string; input?: string }) => runGit(args, { ...o, env });
    const baseline = await snapshotTree(git, repo.dir);
    // What a check script does in the tree: a repository of its own, with a program in its config.
    const vendor = path.join(repo.dir, "vendor-lib");
    execFileSync("git", ["init", "-q", "-b", "main", vendor], { env });
    fs.writeFileSync(path.join(vendor, "lib.txt"), "lib\n");
    execFileSync("git", ["add", "lib.txt"], { cwd: vendor, env });
    execFileSync("git", ["commit", "-qm", "lib"], { cwd: vendor, env });
    execFileSync("git", ["config", "core.fsmonitor", script], { cwd: vendor, env });
    fs.writeFileSync(path.join(repo.dir, "fix.txt"), "fix\n");

    // Not added: otto's status lists the folder, and the commit leaves it out, named.
    await changesSince(git, repo.dir, baseline);
    expect(fs.existsSync(marker)).toBe(false);
    const first = await commitAll(git, repo.dir, "fix", { baseline });
    expect(first.nested).toEqual(["vendor-lib"]);
    expect(await repo.git(["show", "--name-only", "--format=", "HEAD"])).toBe("fix.txt");

    // Added as a gitlink: plain `git status` descends into it and runs its fsmonitor.
    execFileSync("git", ["add", "vendor-lib"], { cwd: repo.dir, env, stdio: "ignore" });
    plainGit(["status", "--porcelain", "--ignore-submodules=none"], repo.dir, env);
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(marker);

    const again = await snapshotTree(git, repo.dir);
    fs.writeFileSync(path.join(repo.dir, "more.txt"), "more\n");
    await changesSince(git, repo.dir, again);
    const second = await commitAll(git, repo.dir, "more", { baseline: again });
    expect(fs.existsSync(marker)).toBe(false);
    expect(await repo.git(["show", "--name-only", "--format=", "HEAD"])).toBe("more.txt");
    expect(second.nested).toEqual([]);
  });

  it("commitAndPush refuses a session's own commit that adds a gitlink, and pushes nothing", async () => {
    const { env } = setup();
    repo = await createRepo();
    const git = (args: string[], o: { cwd: string }) => runGit(args, { ...o, env });
    const baseline = await snapshotTree(git, repo.dir);
    const before = await repo.gitRemote(["rev-parse", "main"]);
    const sha = await repo.git(["rev-parse", "HEAD"]);
    // A session commits a gitlink itself (update-index writes one without a nested repository).
    await repo.git(["update-index", "--add", "--cacheinfo", `160000,${sha},vendor-lib`]);
    await repo.git(["commit", "-qm", "vendor"]);
    const error = await rejection(commitAndPush({ dir: repo.dir, branch: "main", remote: "origin", message: "fix", env, baseline }));
    expect(error.code).toBe("gitlink_in_commit");
    expect(error.message).toContain("vendor-lib");
    expect(await repo.gitRemote(["rev-parse", "main"])).toBe(before);
  });
});

describe("otto's own git: a redirected git directory", () => {
  /** A git directory planted inside the tree, whose config runs `script`. */
  function plant(root: string, script: string, extra = ""): string {
    const planted = path.join(root, ".build-cache", "g");
    execFileSync("git", ["init", "-q", "--bare", planted]);
    fs.appendFileSync(path.join(planted, "config"), `[core]\n\tfsmonitor = ${script}\n\tbare = false\n${extra}`);
    return planted;
  }

  it("main checkout: a written .git/commondir is refused before git starts", async () => {
    const { marker, script, env } = setup();
    repo = await createRepo({ remote: false });
    const git = (args: string[], o: { cwd: string }) => runGit(args, { ...o, env });
    const baseline = await snapshotTree(git, repo.dir);
    const guard = await snapshotGitControl(repo.dir, { env });
    const planted = plant(repo.dir, script);
    fs.writeFileSync(path.join(repo.dir, ".git", "commondir"), `${planted}\n`);
    plainGit(["status"], repo.dir, env);
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(marker);

    expect((await rejection(changesSince(git, repo.dir, baseline))).code).toBe("git_layout_invalid");
    expect((await rejection(snapshotGitControl(repo.dir, { env }))).code).toBe("git_layout_invalid");
    const error = await rejection(commitAll(git, repo.dir, "x", { baseline, guard: { snapshot: guard, env } }));
    expect(error.code).toBe("git_layout_invalid");
    expect(error.message).toContain("commondir");
    expect(error.fix).toMatch(/Look at .*\.git/);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("linked worktree: a .git file pointing at a planted git directory is refused; one that moved elsewhere is a changed layout", async () => {
    const { marker, script, env } = setup();
    repo = await createRepo({ remote: false });
    const wt = `${repo.dir}-wt`;
    await repo.git(["worktree", "add", "-q", "--detach", wt]);
    try {
      const git = (args: string[], o: { cwd: string }) => runGit(args, { ...o, env });
      const baseline = await snapshotTree(git, wt);
      expect((await treePaths(wt)).gitDirs).toHaveLength(2);
      const original = fs.readFileSync(path.join(wt, ".git"), "utf8");
      const planted = plant(wt, script);
      fs.writeFileSync(path.join(wt, ".git"), `gitdir: ${planted}\n`);
      plainGit(["status"], wt, env);
      expect(fs.existsSync(marker)).toBe(true);
      fs.rmSync(marker);
      expect((await rejection(changesSince(git, wt, baseline))).code).toBe("git_layout_invalid");
      expect((await rejection(treePaths(wt))).code).toBe("git_layout_invalid");

      // A git directory outside the tree, well-formed, but not the one otto first found.
      const elsewhere = path.join(outside ?? "", "g");
      fs.cpSync(planted, elsewhere, { recursive: true });
      fs.writeFileSync(path.join(wt, ".git"), `gitdir: ${elsewhere}\n`);
      const changed = await rejection(fetchBranch(wt, "origin", "main", { git: { env } }));
      expect(changed.code).toBe("git_layout_changed");
      expect(changed.message).toContain(elsewhere);
      expect(fs.existsSync(marker)).toBe(false);
      fs.writeFileSync(path.join(wt, ".git"), original);
      expect((await runGit(["status"], { cwd: wt, env })).exitCode).toBe(0);
    } finally {
      fs.rmSync(wt, { recursive: true, force: true });
    }
  });
});

describe("otto's own git: hooks on fetch", () => {
  it("a reference-transaction hook in the repository's hooks folder does not run on fetchBranch", async () => {
    const { marker, script, env } = setup();
    repo = await createRepo();
    await repo.git(["config", "core.hooksPath", ".husky/_"]);
    fs.mkdirSync(path.join(repo.dir, ".husky", "_"), { recursive: true });
    fs.copyFileSync(script, path.join(repo.dir, ".husky", "_", "reference-transaction"));
    fs.chmodSync(path.join(repo.dir, ".husky", "_", "reference-transaction"), 0o755);
    plainGit(["fetch", "-q", "origin", "+refs/heads/main:refs/remotes/origin/fresh"], repo.dir, env);
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(marker);
    await repo.git(["-c", "core.hooksPath=/dev/null", "update-ref", "-d", "refs/remotes/origin/main"]);

    await fetchBranch(repo.dir, "origin", "main", { git: { env } });
    expect(await repo.git(["rev-parse", "refs/remotes/origin/main"])).toBe(await repo.git(["rev-parse", "HEAD"]));
    await runGit(["branch", "otto-x"], { cwd: repo.dir, env });
    await runGit(["update-ref", "refs/heads/otto-y", "HEAD"], { cwd: repo.dir, env });
    expect(fs.existsSync(marker)).toBe(false);
    expect(await repo.git(["rev-parse", "otto-y"])).toBe(await repo.git(["rev-parse", "HEAD"]));
    // The guard still sees the repository's own hooks path (not otto's /dev/null) and its hooks.
    const control = await snapshotGitControl(repo.dir, { env });
    expect(Object.keys(control.items)).toContain("hook core.hooksPath .husky/_/reference-transaction");
  });
});

const sandboxed = detectSandbox().kind === "bwrap";

describe.skipIf(!sandboxed)("otto's own git and the sandbox (real bubblewrap)", () => {
  it("a check that writes .git/commondir to a git directory it planted: the file is quarantined; one left while no sandbox held the tree refuses otto's next check", async () => {
    const { marker, script, env } = setup();
    repo = await createRepo({ remote: false });
    const first = await runCheck(
      [
        "git init -q --bare .build-cache/g",
        `printf '[core]\\n\\tbare = false\\n\\tfsmonitor = ${script}\\n' >> .build-cache/g/config`,
        'echo "$PWD/.build-cache/g" > .git/commondir',
        "cat .git/commondir",
      ].join(" && "),
      { cwd: repo.dir, sandbox: "required", env, timeoutMs: 30_000 },
    );
    // Positive control: the check wrote it; otto moved it out after the check (control-watch.ts).
    expect(first.output).toContain(".build-cache/g");
    expect(first.output).toContain("otto moved .git/commondir out of the tree");
    expect(first.passed).toBe(true);
    plainGit(["status"], repo.dir, env);
    expect(fs.existsSync(marker)).toBe(false);
    // The same file written while no sandbox held the tree (sandbox "off", or by hand): plain git runs the program.
    fs.writeFileSync(path.join(repo.dir, ".git", "commondir"), `${path.join(repo.dir, ".build-cache", "g")}\n`);
    plainGit(["status"], repo.dir, env);
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(marker);

    const error = await rejection(runCheck("true", { cwd: repo.dir, sandbox: "required", env, timeoutMs: 30_000 }));
    expect(error.code).toBe("git_layout_invalid");
    expect((await rejection(snapshotTree((args, o) => runGit(args, { ...o, env }), repo.dir))).code).toBe("git_layout_invalid");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a worktree's .git redirected to a git directory with core.worktree = $HOME: the sandbox is not widened to the home", async () => {
    const { home, env } = setup();
    repo = await createRepo({ remote: false });
    const wt = `${repo.dir}-wt`;
    await repo.git(["worktree", "add", "-q", "--detach", wt]);
    try {
      expect((await runCheck("true", { cwd: wt, sandbox: "required", env, timeoutMs: 30_000 })).passed).toBe(true);
      // Written while no sandbox held the tree (sandbox "off", or by hand): plain git now takes the home for the work tree.
      const planted = path.join(wt, ".build-cache", "g");
      execFileSync("git", ["init", "-q", "--bare", planted]);
      fs.appendFileSync(path.join(planted, "config"), `[core]\n\tbare = false\n\tworktree = ${home}\n`);
      fs.writeFileSync(path.join(wt, ".git"), `gitdir: ${planted}\n`);
      expect(plainGit(["rev-parse", "--show-toplevel"], wt, env).trim()).toBe(fs.realpathSync(home));

      expect((await rejection(treePaths(wt))).code).toBe("git_layout_invalid");
      const error = await rejection(
        runCheck(`echo pwned > '${path.join(home, ".bashrc")}'`, { cwd: wt, sandbox: "required", env, timeoutMs: 30_000 }),
      );
      expect(error.code).toBe("git_layout_invalid");
      expect(fs.existsSync(path.join(home, ".bashrc"))).toBe(false);
    } finally {
      fs.rmSync(wt, { recursive: true, force: true });
    }
  });

  it("a check cannot rewrite a linked worktree's .git file, nor its git directory's commondir or gitdir", async () => {
    const { env } = setup();
    repo = await createRepo({ remote: false });
    const wt = `${repo.dir}-wt`;
    await repo.git(["worktree", "add", "-q", "--detach", wt]);
    try {
      const { gitDirs } = await treePaths(wt);
      const gitDir = gitDirs.find((d) => d.includes(`${path.sep}worktrees${path.sep}`)) ?? "";
      const files = [path.join(wt, ".git"), path.join(gitDir, "commondir"), path.join(gitDir, "gitdir")];
      const before = files.map((f) => fs.readFileSync(f, "utf8"));
      const result = await runCheck(files.map((f) => `(echo 'gitdir: /elsewhere' > '${f}') 2>/dev/null`).join("; ") + "; true", {
        cwd: wt,
        sandbox: "required",
        env,
        timeoutMs: 30_000,
      });
      expect(result.passed).toBe(true);
      expect(files.map((f) => fs.readFileSync(f, "utf8"))).toEqual(before);
      // Its tree stays writable.
      expect((await runCheck("echo ok > made.txt", { cwd: wt, sandbox: "required", env, timeoutMs: 30_000 })).passed).toBe(true);
      expect(fs.readFileSync(path.join(wt, "made.txt"), "utf8")).toBe("ok\n");
    } finally {
      fs.rmSync(wt, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!sandboxed)("otto's own git in a tree sandboxed code held (real bubblewrap)", () => {
  it("local commands run in the sandbox once a check ran there (no token, the user's home out of reach); other trees do not", async () => {
    const { home, env: base } = setup();
    const env = { ...base, GITHUB_TOKEN: "ghp_ownGitTokenValue0123456789abcdef" };
    // Stands in for git: says what it sees and tries to write the user's home.
    const probe = path.join(outside ?? "", "git-probe.sh");
    fs.writeFileSync(
      probe,
      `#!/bin/sh\necho "token=[$GITHUB_TOKEN]"\necho x > '${path.join(home, ".bashrc")}' 2>/dev/null && echo wrote\nexit 0\n`,
      {
        mode: 0o755,
      },
    );
    repo = await createRepo({ remote: false });
    const other = await createRepo({ remote: false });
    try {
      const before = await runGit(["status"], { cwd: repo.dir, env, binary: probe });
      expect(before.stdout).toContain("token=[ghp_ownGitTokenValue0123456789abcdef]");
      expect(before.stdout).toContain("wrote");
      fs.rmSync(path.join(home, ".bashrc"));

      expect((await runCheck("true", { cwd: repo.dir, sandbox: "auto", env, timeoutMs: 30_000 })).passed).toBe(true);
      for (const args of [["status"], ["--literal-pathspecs", "commit", "-m", "x"], ["diff", "HEAD"]]) {
        const boxed = await runGit(args, { cwd: repo.dir, env, binary: probe });
        expect(boxed.stdout).toContain("token=[]");
        // The sandbox's home is an empty, throwaway one: a write lands there, never in the user's.
        expect(fs.existsSync(path.join(home, ".bashrc"))).toBe(false);
      }
      expect(fs.existsSync(path.join(home, ".bashrc"))).toBe(false);
      // Fetch and push there go through otto's own git directory (airlock.test.ts); a tree no sandboxed code held runs plain.
      expect((await runGit(["status"], { cwd: other.dir, env, binary: probe })).stdout).toContain("token=[ghp_");

      // Real git works there, boxed: a commit of what the check made.
      fs.writeFileSync(path.join(repo.dir, "made.txt"), "made\n");
      const git = (args: string[], o: { cwd: string; input?: string }) => runGit(args, { ...o, env });
      const result = await commitAll(git, repo.dir, "made", { baseline: { entries: {} } });
      expect(result.sha).toMatch(/^[0-9a-f]{7,}$/);
      expect(await repo.git(["show", "--name-only", "--format=", "HEAD"])).toBe("made.txt");
    } finally {
      other.cleanup();
    }
  });

  it("the mark survives the process: a later otto still boxes its git there, and the code it held cannot remove the mark", async () => {
    const { env } = setup();
    repo = await createRepo({ remote: false });
    const mark = path.join(repo.dir, ".git", "info", "otto-sandboxed");
    const result = await runCheck(`rm -f '${mark}'; echo off > '${mark}'; true`, {
      cwd: repo.dir,
      sandbox: "auto",
      env,
      timeoutMs: 30_000,
    });
    expect(result.passed).toBe(true);
    expect(fs.readFileSync(mark, "utf8")).toBe("auto\n");
    // A new process knows nothing but what the tree's git directory says.
    forgetTreeLayout(repo.dir);
    expect(heldSandbox(fs.realpathSync(repo.dir))).toBeUndefined();
    checkTreeLayout(repo.dir);
    expect(heldSandbox(fs.realpathSync(repo.dir))).toBe("auto");
  });
});
