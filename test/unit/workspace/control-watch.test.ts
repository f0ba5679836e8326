import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectSandbox, planCommand } from "../../../src/sandbox/index.ts";
import { runCheck, runGit, settleControls, settledLine, watchControls } from "../../../src/workspace/index.ts";
import { treePaths } from "../../../src/workspace/git.ts";
import { developerHome } from "../../support/dev-home.ts";

/*
 * What a sandboxed command leaves that no read-only mount can hold (control-watch.ts): control
 * paths missing at its start (`.git/commondir`, `.git/hooks`, a temporary worktree's shared
 * `commondir`, `.opencode`), a gitlink added to the writable index, the user's other branches and
 * tags. Each test plants through the real sandbox (runCheck, as otto's checks run; planCommand and
 * the watch, as the session guard's hooks do), checks the plant happened, then runs the user's
 * own git outside and looks for the planted program's mark.
 */

const sandboxed = detectSandbox(process.env).kind === "bwrap";
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

interface Lab {
  home: string;
  repo: string;
  env: Record<string, string>;
  mark: string;
}

function lab(): Lab {
  const dev = developerHome();
  cleanups.push(() => dev.cleanup());
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", ...dev.env };
  const repo = path.join(dev.home, "project");
  fs.mkdirSync(repo);
  git(env, repo, "init", "-q", "-b", "main");
  fs.writeFileSync(path.join(repo, "README.md"), "hello\n");
  git(env, repo, "add", "-A");
  git(env, repo, "commit", "-qm", "init");
  return { home: dev.home, repo, env, mark: path.join(dev.home, "PLANTED-RAN") };
}

function git(env: Record<string, string>, cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** A program that leaves the mark when the user's git runs it outside. */
const planted = (mark: string): string => `printf '#!/bin/sh\\ntouch ${mark}; exit 1\\n'`;

/** A fake common directory inside `gitDir` whose config adds core.fsmonitor (the commondir attack). */
function fakeCommon(mark: string, gitDir: string): string {
  return [
    "set -e",
    `d=${gitDir}/x; mkdir -p $d`,
    `ln -s ${gitDir}/objects $d/objects; ln -s ${gitDir}/refs $d/refs`,
    `${planted(mark)} > $d/fsm; chmod +x $d/fsm`,
    `{ cat ${gitDir}/config; printf '[core]\\n\\tfsmonitor = %s\\n' $d/fsm; } > $d/config`,
  ].join("\n");
}

const check = (l: Lab, command: string, cwd = l.repo) => runCheck(command, { cwd, sandbox: "required", env: l.env, timeoutMs: 60_000 });
const quarantine = (l: Lab): string[] => {
  const dir = path.join(l.home, ".local", "share", "otto", "quarantine");
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map(String) : [];
};

describe.skipIf(!sandboxed)("what a sandboxed command leaves for git and OpenCode outside (real bubblewrap)", () => {
  it("a .git/commondir the command created is quarantined: the user's git status runs no planted fsmonitor", async () => {
    const l = lab();
    const result = await check(l, `${fakeCommon(l.mark, ".git")}\necho x > .git/commondir\necho planted`);
    // Positive control: the plant ran inside.
    expect(result.output).toContain("planted");
    expect(result.output).toContain("moved .git/commondir");
    expect(fs.existsSync(path.join(l.repo, ".git", "commondir"))).toBe(false);
    expect(quarantine(l).some((p) => p.endsWith(path.join(".git", "commondir")))).toBe(true);
    git(l.env, l.repo, "status", "--short");
    expect(fs.existsSync(l.mark)).toBe(false);
  });

  it("a .git/hooks folder created where the checkout had none is quarantined before the user's commit", async () => {
    const l = lab();
    fs.rmSync(path.join(l.repo, ".git", "hooks"), { recursive: true });
    const result = await check(
      l,
      `mkdir .git/hooks && ${planted(l.mark)} > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo planted`,
    );
    expect(result.output).toContain("planted");
    expect(quarantine(l).some((p) => p.endsWith(path.join("hooks", "pre-commit")))).toBe(true);
    fs.writeFileSync(path.join(l.repo, "a.txt"), "user edit\n");
    git(l.env, l.repo, "add", "a.txt");
    git(l.env, l.repo, "commit", "-qm", "the user's own commit");
    expect(fs.existsSync(l.mark)).toBe(false);
  });

  it("the user's other linked worktree's git directory is read-only inside", async () => {
    const l = lab();
    const other = path.join(l.home, "other-wt");
    git(l.env, l.repo, "worktree", "add", "-q", other, "-b", "feature");
    const admin = path.join(l.repo, ".git", "worktrees", "other-wt");
    const result = await check(
      l,
      `echo /elsewhere > ${admin}/commondir; echo "commondir=$?"; echo x > ${admin}/config.worktree; echo "new=$?"`,
    );
    expect(result.output).toMatch(/commondir=[1-9]/);
    expect(result.output).toMatch(/new=[1-9]/);
    expect(fs.readFileSync(path.join(admin, "commondir"), "utf8").trim()).toBe("../..");
    expect(fs.existsSync(path.join(admin, "config.worktree"))).toBe(false);
  });

  it("a commondir planted in the common directory from otto's temporary worktree is quarantined", async () => {
    const l = lab();
    const temp = path.join(l.home, ".local", "share", "otto", "worktrees", "wt1");
    fs.mkdirSync(path.dirname(temp), { recursive: true });
    git(l.env, l.repo, "worktree", "add", "-q", "--detach", temp);
    const common = path.join(l.repo, ".git");
    const tree = { root: temp, gitDirs: [path.join(common, "worktrees", "wt1"), common], sharedCommon: common };
    const plan = planCommand(
      { mode: "required", cwd: temp, tree, env: l.env },
      `${fakeCommon(l.mark, common)}\necho x > ${common}/commondir\necho planted`,
    );
    // As the session guard does: look before, settle after.
    const watch = watchControls(tree);
    const ran = spawnSync(plan.argv[0] ?? "", plan.argv.slice(1), { cwd: temp, env: l.env, encoding: "utf8" });
    expect(ran.stdout).toContain("planted");
    const settled = await settleControls(watch, l.env, (a, o) => runGit(a, { ...o, env: l.env }));
    expect(settled.quarantined?.paths.some((p) => p.endsWith(path.join(".git", "commondir")))).toBe(true);
    git(l.env, l.repo, "status", "--short");
    expect(fs.existsSync(l.mark)).toBe(false);
  });

  it("a gitlink added to the index is taken out: the user's git status does not descend into the nested repository", async () => {
    const l = lab();
    const result = await check(
      l,
      [
        "set -e",
        "mkdir vendorlib && cd vendorlib && git init -q && echo x > f && git add f && git -c user.name=a -c user.email=a@b commit -qm x",
        `${planted(l.mark)} > .git/fsm; chmod +x .git/fsm`,
        'git config core.fsmonitor "$PWD/.git/fsm"',
        "sha=$(git rev-parse HEAD); cd ..",
        'git update-index --add --cacheinfo "160000,$sha,vendorlib"',
        "git ls-files -s vendorlib",
      ].join("\n"),
    );
    // Positive control: the gitlink was in the index when the command ended.
    expect(result.output).toMatch(/^160000 /m);
    expect(result.output).toContain("took the submodule pointers vendorlib out of the index");
    expect(git(l.env, l.repo, "ls-files", "-s", "vendorlib")).toBe("");
    git(l.env, l.repo, "status", "--short");
    expect(fs.existsSync(l.mark)).toBe(false);
    // The session's files stay.
    expect(fs.existsSync(path.join(l.repo, "vendorlib", "f"))).toBe(true);
  });

  it("the user's other branch and tag are put back; a commit on the checked-out branch and a new branch stay", async () => {
    const l = lab();
    git(l.env, l.repo, "branch", "release");
    git(l.env, l.repo, "tag", "v1.0");
    git(l.env, l.repo, "pack-refs", "--all");
    git(l.env, l.repo, "branch", "loose");
    const before = git(l.env, l.repo, "rev-parse", "HEAD").trim();
    const result = await check(
      l,
      [
        "set -e",
        "echo evil > evil.txt && git add evil.txt && git commit -qm evil",
        "git branch -f release HEAD && git tag -f v1.0 HEAD && git branch -D loose && git branch session-new",
        "git rev-parse release",
      ].join("\n"),
    );
    const moved = git(l.env, l.repo, "rev-parse", "HEAD").trim();
    // Positive control: inside, release pointed at the new commit.
    expect(result.output).toContain(moved);
    expect(moved).not.toBe(before);
    expect(result.output).toContain("put branch release, tag v1.0, branch loose back");
    expect(git(l.env, l.repo, "rev-parse", "release", "v1.0", "loose").trim().split("\n")).toEqual([before, before, before]);
    expect(git(l.env, l.repo, "rev-parse", "main", "session-new").trim().split("\n")).toEqual([moved, moved]);
  });

  it("a .opencode folder the command created is quarantined at once", async () => {
    const l = lab();
    const result = await check(l, "mkdir -p .opencode/plugins && echo 'export default {}' > .opencode/plugins/x.js && echo planted");
    expect(result.output).toContain("planted");
    expect(fs.existsSync(path.join(l.repo, ".opencode"))).toBe(false);
    expect(quarantine(l).some((p) => p.endsWith(path.join(".opencode", "plugins", "x.js")))).toBe(true);
  });

  it("normal work leaves nothing to settle: files, git add and commit on the session's branch", async () => {
    const l = lab();
    const result = await check(l, "echo work > work.txt && git add work.txt && git commit -qm work && git status --short && echo done");
    expect(result.passed, result.output).toBe(true);
    expect(result.output).not.toContain("otto ");
    expect(git(l.env, l.repo, "log", "-1", "--format=%s").trim()).toBe("work");
    expect(quarantine(l)).toEqual([]);
  });
});

/*
 * The look after a command reaches nothing through a link the command made on the way (a swapped
 * `.git/worktrees/<name>` or `refs/heads`), and says what it could not undo. The command's effects
 * are made here directly, as a sandboxed command would leave them.
 */
describe("the look after reaches nothing through a link, and says what it could not undo", () => {
  const settle = (l: Lab, watch: ReturnType<typeof watchControls>) =>
    settleControls(watch, l.env, (a, o) => runGit(a, { ...o, env: l.env }));

  it("a linked worktree's git directory swapped for a link to another repository's: the link is moved out, that repository's hooks stay", async () => {
    const l = lab();
    git(l.env, l.repo, "worktree", "add", "-q", path.join(l.home, "wt"), "-b", "feature");
    const billing = path.join(l.home, "code", "billing");
    fs.mkdirSync(billing, { recursive: true });
    git(l.env, billing, "init", "-q");
    fs.writeFileSync(path.join(billing, ".git", "hooks", "pre-commit"), "#!/bin/sh\ngitleaks protect\n", { mode: 0o755 });
    const watch = watchControls(await treePaths(l.repo));
    const common = path.join(l.repo, ".git");
    fs.renameSync(path.join(common, "worktrees"), path.join(common, "worktrees-old"));
    fs.mkdirSync(path.join(common, "worktrees"));
    fs.symlinkSync(path.join(billing, ".git"), path.join(common, "worktrees", "wt"));

    const settled = await settle(l, watch);
    expect(fs.existsSync(path.join(billing, ".git", "hooks", "pre-commit"))).toBe(true);
    expect(fs.existsSync(path.join(billing, ".git", "info"))).toBe(true);
    expect(settled.quarantined?.paths).toEqual([path.join(".git", "worktrees", "wt")]);
    expect(fs.lstatSync(path.join(settled.quarantined!.dir, ".git", "worktrees", "wt")).isSymbolicLink()).toBe(true);
    expect(fs.existsSync(path.join(common, "worktrees", "wt"))).toBe(false);
    expect(settled.failed).toEqual([]);
  });

  it("refs/heads swapped for a link to a folder of the user's: nothing there is deleted; the link is moved out and every branch put back, the checked-out one too", async () => {
    const l = lab();
    const main = git(l.env, l.repo, "rev-parse", "HEAD").trim();
    git(l.env, l.repo, "branch", "release");
    const code = path.join(l.home, "code");
    fs.mkdirSync(path.join(code, "release"), { recursive: true });
    fs.writeFileSync(path.join(code, "release", "work.txt"), "uncommitted work\n");
    const watch = watchControls(await treePaths(l.repo));
    const refs = path.join(l.repo, ".git", "refs");
    fs.renameSync(path.join(refs, "heads"), path.join(refs, "heads-old"));
    fs.symlinkSync(code, path.join(refs, "heads"));

    const settled = await settle(l, watch);
    expect(fs.readFileSync(path.join(code, "release", "work.txt"), "utf8")).toBe("uncommitted work\n");
    expect(fs.lstatSync(path.join(refs, "heads")).isDirectory()).toBe(true);
    expect(settled.quarantined?.paths).toEqual([path.join(".git", "refs", "heads")]);
    expect(settled.refs.sort()).toEqual(["branch main", "branch release"]);
    expect(git(l.env, l.repo, "rev-parse", "release", "main").trim().split("\n")).toEqual([main, main]);
    expect(settled.failed).toEqual([]);
  });

  it("a folder planted where a branch's file was is moved out, not deleted, and the branch put back", async () => {
    const l = lab();
    const main = git(l.env, l.repo, "rev-parse", "HEAD").trim();
    git(l.env, l.repo, "branch", "release");
    const watch = watchControls(await treePaths(l.repo));
    const ref = path.join(l.repo, ".git", "refs", "heads", "release");
    fs.rmSync(ref);
    fs.mkdirSync(ref);
    fs.writeFileSync(path.join(ref, "x"), "kept\n");

    const settled = await settle(l, watch);
    expect(settled.refs).toEqual(["branch release"]);
    expect(git(l.env, l.repo, "rev-parse", "release").trim()).toBe(main);
    expect(fs.readFileSync(path.join(settled.quarantined!.dir, ".git", "refs", "heads", "release", "x"), "utf8")).toBe("kept\n");
  });

  it("a .opencode folder the command made read-only is made writable and moved out", async () => {
    const l = lab();
    const watch = watchControls(await treePaths(l.repo));
    fs.mkdirSync(path.join(l.repo, ".opencode", "plugins"), { recursive: true });
    fs.writeFileSync(path.join(l.repo, ".opencode", "plugins", "x.js"), "export default {}\n");
    fs.chmodSync(path.join(l.repo, ".opencode"), 0o555);

    const settled = await settle(l, watch);
    expect(fs.existsSync(path.join(l.repo, ".opencode"))).toBe(false);
    expect(settled.quarantined?.paths).toEqual([".opencode"]);
    // Renaming a folder needs write permission on it for anyone but root: given first.
    expect(fs.statSync(path.join(settled.quarantined!.dir, ".opencode")).mode & 0o200).toBe(0o200);
  });

  it("OpenCode configuration planted below the top (loaded by an OpenCode started there) is moved out with a walk of the tree; what was there at the first look stays", async () => {
    const l = lab();
    const own = path.join(l.repo, "packages", "app", ".opencode");
    fs.mkdirSync(path.join(own, "agent"), { recursive: true });
    fs.writeFileSync(path.join(own, "agent", "review.md"), "the user's\n");
    const watch = watchControls(await treePaths(l.repo), { nested: true });
    const web = path.join(l.repo, "packages", "web");
    fs.mkdirSync(path.join(web, ".opencode", "plugins"), { recursive: true });
    fs.writeFileSync(path.join(web, ".opencode", "plugins", "x.js"), "export default {}\n");
    fs.writeFileSync(path.join(web, "opencode.json"), "{}\n");
    fs.mkdirSync(path.join(l.repo, "docs"));
    fs.symlinkSync(path.join(l.home, "elsewhere"), path.join(l.repo, "docs", "opencode.jsonc"));
    // A look without the walk (a later command's) leaves them: the session's first look has it.
    const later = watchControls(await treePaths(l.repo));
    expect((await settle(l, later)).quarantined).toBeUndefined();

    const settled = await settle(l, watch);
    expect(settled.quarantined?.paths.sort()).toEqual([
      path.join("docs", "opencode.jsonc"),
      path.join("packages", "web", ".opencode"),
      path.join("packages", "web", "opencode.json"),
    ]);
    expect(fs.existsSync(path.join(web, ".opencode"))).toBe(false);
    expect(fs.existsSync(path.join(web, "opencode.json"))).toBe(false);
    expect(fs.readFileSync(path.join(own, "agent", "review.md"), "utf8")).toBe("the user's\n");
  });

  it("what cannot be moved out is said, in capitals, with the next step", async () => {
    const l = lab();
    const watch = watchControls(await treePaths(l.repo));
    // otto's data folder cannot be made: the quarantine has nowhere to go.
    fs.writeFileSync(path.join(l.home, "data-file"), "");
    const env = { ...l.env, XDG_DATA_HOME: path.join(l.home, "data-file") };
    fs.mkdirSync(path.join(l.repo, ".opencode"));
    const settled = await settleControls(watch, env, (a, o) => runGit(a, { ...o, env }));
    expect(settled.failed).toEqual([`${path.join(l.repo, ".opencode")} (ENOTDIR)`]);
    expect(settledLine(settled)).toBe(
      `otto could NOT undo ${path.join(l.repo, ".opencode")} (ENOTDIR): git or OpenCode would run it outside the sandbox; remove it before you run git or OpenCode in this checkout.`,
    );
  });
});
