import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectSandbox, planCommand, seatbeltProfile, type TreePaths } from "../../../src/sandbox/index.ts";
import type { SandboxPolicy } from "../../../src/sandbox/policy.ts";
import { developerHome } from "../../support/dev-home.ts";

/*
 * The common git directory's `worktrees/` as a whole, and the main checkout's index and HEAD,
 * seen from a sandboxed command (policy.ts). `worktrees/` renamed and rebuilt would give the
 * user's other worktree a commondir of the sandbox's (or a link otto's look after follows); the
 * main checkout's index written from a linked worktree is staged in the user's next commit. The
 * session's own git directory inside `worktrees/` stays writable: its commits work.
 */

const sandboxed = detectSandbox(process.env).kind === "bwrap";
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function git(env: Record<string, string>, cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** A checkout with one commit and a linked worktree `feature-wt` on branch `feature`. */
function lab() {
  const dev = developerHome();
  cleanups.push(() => dev.cleanup());
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", ...dev.env };
  const repo = path.join(dev.home, "project");
  fs.mkdirSync(repo);
  git(env, repo, "init", "-q", "-b", "main");
  fs.writeFileSync(path.join(repo, "app.js"), "app\n");
  git(env, repo, "add", "-A");
  git(env, repo, "commit", "-qm", "init");
  const wt = path.join(dev.home, "feature-wt");
  git(env, repo, "worktree", "add", "-q", wt, "-b", "feature");
  const common = path.join(repo, ".git");
  return { home: dev.home, repo, env, wt, common, admin: path.join(common, "worktrees", "feature-wt") };
}

function run(env: Record<string, string>, cwd: string, tree: TreePaths, command: string): string {
  const plan = planCommand({ mode: "required", cwd, tree, env }, command);
  const r = spawnSync(plan.argv[0] ?? "", plan.argv.slice(1), { cwd, env, encoding: "utf8" });
  return `${r.stdout}${r.stderr}`;
}

describe.skipIf(!sandboxed)("the common directory's worktrees folder and the main checkout's index (real bubblewrap)", () => {
  it("from the main checkout: .git/worktrees cannot be renamed or added to; the other worktree's commondir stays", () => {
    const l = lab();
    const out = run(
      l.env,
      l.repo,
      { root: l.repo, gitDirs: [l.common] },
      "mv .git/worktrees .git/wt-old; echo mv=$?; mkdir .git/worktrees/x; echo mkdir=$?; echo ok > .git/ok; echo common=$?",
    );
    expect(out).toMatch(/mv=[1-9]/);
    expect(out).toMatch(/mkdir=[1-9]/);
    // Positive control: the common directory itself stays writable.
    expect(out).toContain("common=0");
    expect(fs.readdirSync(path.join(l.common, "worktrees"))).toEqual(["feature-wt"]);
    expect(fs.readFileSync(path.join(l.admin, "commondir"), "utf8").trim()).toBe("../..");
  });

  it("from a linked worktree: the main checkout's index and HEAD and the worktrees folder are read-only; its own commits work", () => {
    const l = lab();
    const tree = { root: l.wt, gitDirs: [l.admin, l.common] };
    const out = run(
      l.env,
      l.wt,
      tree,
      [
        'b=$(echo evil | git hash-object -w --stdin); GIT_INDEX_FILE="$(git rev-parse --git-common-dir)/index" git update-index --cacheinfo "100644,$b,app.js"; echo index=$?',
        "echo 'ref: refs/heads/evil' > $(git rev-parse --git-common-dir)/HEAD; echo head=$?",
        "mv $(git rev-parse --git-common-dir)/worktrees $(git rev-parse --git-common-dir)/wt-old; echo mv=$?",
        "echo x > $(git rev-parse --git-dir)/commondir; echo commondir=$?",
        "echo work > work.txt && git add work.txt && git -c user.name=s -c user.email=s@x commit -qm work && echo committed",
      ].join("\n"),
    );
    expect(out).toMatch(/index=[1-9]/);
    expect(out).toMatch(/head=[1-9]/);
    expect(out).toMatch(/mv=[1-9]/);
    // The own git directory is writable again, its controls on top are not.
    expect(out).toMatch(/commondir=[1-9]/);
    expect(out).toContain("committed");
    expect(git(l.env, l.repo, "ls-files", "-s", "app.js")).toContain(git(l.env, l.repo, "rev-parse", "HEAD:app.js").trim());
    expect(fs.readFileSync(path.join(l.common, "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
    expect(fs.readFileSync(path.join(l.admin, "commondir"), "utf8").trim()).toBe("../..");
    // The session's commit: on its branch (a ref of the common directory), its HEAD's log and index.
    expect(git(l.env, l.repo, "log", "-1", "--format=%s", "feature").trim()).toBe("work");
    expect(git(l.env, l.wt, "status", "--short")).toBe("");
  });

  it("from otto's temporary worktree: the worktrees folder cannot be swapped", () => {
    const l = lab();
    const temp = path.join(l.home, ".local", "share", "otto", "worktrees", "wt1");
    fs.mkdirSync(path.dirname(temp), { recursive: true });
    git(l.env, l.repo, "worktree", "add", "-q", "--detach", temp);
    const tree = { root: temp, gitDirs: [path.join(l.common, "worktrees", "wt1"), l.common], sharedCommon: l.common };
    const out = run(l.env, temp, tree, `mv ${l.common}/worktrees ${l.common}/wt-old; echo mv=$?; echo x > t.txt; echo tree=$?`);
    expect(out).toMatch(/mv=[1-9]/);
    expect(out).toContain("tree=0");
    expect(fs.readdirSync(path.join(l.common, "worktrees")).sort()).toEqual(["feature-wt", "wt1"]);
  });
});

describe("a git directory of the tree inside a read-only folder", () => {
  const policy = (): SandboxPolicy => ({
    cwd: "/w/wt",
    tree: ["/w/wt", "/w/repo/.git/worktrees/wt", "/w/repo/.git"],
    toolchains: [],
    caches: [],
    allowRead: [],
    allowWrite: [],
    readOnly: ["/w/repo/.git/worktrees/wt/commondir", "/w/repo/.git/worktrees", "/w/repo/.git/index", "/w/wt/.git"],
    hidden: [],
    privateTemp: [],
    emptyRun: [],
    runKeep: [],
    network: "open",
    ports: [],
    gitFiles: [],
    configViews: [{ copy: "/v/commondir", file: "/w/repo/.git/worktrees/wt/commondir" }],
  });

  it("Seatbelt: writes allowed again in it after the read-only folder's denial, its own read-only files denied after that", () => {
    const lines = seatbeltProfile(policy()).split("\n");
    const deny = lines.findIndex((l) => l.startsWith('(deny file-write* (subpath "/w/repo/.git/worktrees/wt/commondir")'));
    expect(deny).toBeGreaterThan(0);
    expect(lines.slice(deny + 1, deny + 3)).toEqual([
      '(allow file-write* (subpath "/w/repo/.git/worktrees/wt"))',
      '(deny file-write* (subpath "/w/repo/.git/worktrees/wt/commondir"))',
    ]);
    // Nothing inside a read-only folder: no line for it.
    const flat = { ...policy(), readOnly: ["/w/repo/.git/index"] };
    expect(seatbeltProfile(flat)).not.toContain("(allow file-write*");
    // Nothing of its own read-only: allowed again, no denial after.
    const bare = seatbeltProfile({ ...policy(), readOnly: ["/w/repo/.git/worktrees"] });
    expect(bare).toContain('(allow file-write* (subpath "/w/repo/.git/worktrees/wt"))');
    expect(bare).not.toContain('(deny file-write* (subpath "/w/repo/.git/worktrees/wt');
  });
});
