import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeControlChanges, gitControlChanges, snapshotGitControl } from "../../../src/workspace/git-guard.ts";
import { createRepo, gitEnv, removeAfterTest, type Repo } from "../../support/git.ts";

/*
 * What the git-control guard compares, item by item (git-guard.test.ts and own-git.test.ts drive it
 * through otto's commit and push): configuration in the tree's own files and what they include from
 * the tree, hooks, info/attributes and an in-tree core.hooksPath; never values, never the user's files.
 */

let repo: Repo | undefined;
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
});

async function setup() {
  repo = await createRepo({ remote: false });
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-git-guard-home-")));
  removeAfterTest(home);
  fs.writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = u\n");
  const env = gitEnv({ HOME: home, GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig") });
  const dir = repo.dir;
  const gitDir = fs.realpathSync(path.join(dir, ".git"));
  const snap = () => snapshotGitControl(dir, { env });
  const changes = async (before: Awaited<ReturnType<typeof snap>>) => gitControlChanges(before, { env });
  return { dir, gitDir, home, env, snap, changes, git: repo.git.bind(repo) };
}

describe("the git-control guard's items", () => {
  it("the tree's own config: a key added, changed, removed, or given a second value; branch settings are the session's", async () => {
    const s = await setup();
    const file = `config file:${path.join(s.gitDir, "config")}`;
    await s.git(["config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"]);
    const before = await s.snap();
    expect(await s.changes(before)).toEqual([]);
    await s.git(["config", "core.fsmonitor", "./evil"]);
    await s.git(["config", "--add", "remote.origin.fetch", "+refs/tags/*:refs/tags/*"]);
    await s.git(["config", "--unset", "user.email"]);
    await s.git(["config", "branch.main.remote", "elsewhere"]);
    expect(await s.changes(before)).toEqual([
      `${file} core.fsmonitor added`,
      `${file} remote.origin.fetch changed`,
      `${file} user.email removed`,
    ]);
  });

  it("hooks and info/attributes: added, changed, made executable, a link, a folder", async () => {
    const s = await setup();
    fs.writeFileSync(path.join(s.gitDir, "hooks", "pre-push"), "#!/bin/sh\n");
    const before = await s.snap();
    fs.writeFileSync(path.join(s.gitDir, "hooks", "post-commit"), "#!/bin/sh\n");
    fs.chmodSync(path.join(s.gitDir, "hooks", "pre-push"), 0o755);
    fs.symlinkSync("/bin/true", path.join(s.gitDir, "hooks", "pre-commit"));
    fs.mkdirSync(path.join(s.gitDir, "info"), { recursive: true });
    fs.writeFileSync(path.join(s.gitDir, "info", "attributes"), "*.ts -diff\n");
    expect(await s.changes(before)).toEqual([
      "file info/attributes added",
      "hook hooks/post-commit added",
      "hook hooks/pre-commit added",
      "hook hooks/pre-push changed",
    ]);
    const after = await s.snap();
    fs.rmSync(path.join(s.gitDir, "hooks", "pre-commit"));
    fs.symlinkSync("/bin/false", path.join(s.gitDir, "hooks", "pre-commit"));
    fs.mkdirSync(path.join(s.gitDir, "hooks", "dir.d"));
    expect(await s.changes(after)).toEqual(["hook hooks/dir.d added", "hook hooks/pre-commit changed"]);
  });

  it("an in-tree core.hooksPath is compared, one outside the tree is the user's; includes from the tree count, the user's global file does not", async () => {
    const s = await setup();
    fs.mkdirSync(path.join(s.dir, ".husky"));
    await s.git(["config", "core.hooksPath", ".husky"]);
    fs.writeFileSync(path.join(s.dir, "inc.config"), "[core]\n\tpager = less\n");
    await s.git(["config", "include.path", "../inc.config"]);
    const before = await s.snap();
    fs.writeFileSync(path.join(s.dir, ".husky", "pre-commit"), "x\n");
    fs.writeFileSync(path.join(s.dir, "inc.config"), "[core]\n\tpager = evil\n");
    fs.writeFileSync(path.join(s.home, ".gitconfig"), "[user]\n\tname = changed\n[core]\n\tfsmonitor = x\n");
    expect(await s.changes(before)).toEqual([
      "config file:.git/../inc.config core.pager changed",
      "hook core.hooksPath .husky/pre-commit added",
    ]);
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-hooks-outside-")));
    removeAfterTest(outside);
    await s.git(["config", "core.hooksPath", outside]);
    const later = await s.snap();
    fs.writeFileSync(path.join(outside, "pre-push"), "x\n");
    expect(await s.changes(later)).toEqual([]);
    await s.git(["config", "core.hooksPath", "~/hooks"]);
    fs.mkdirSync(path.join(s.home, "hooks"));
    // A `hooks` folder in the tree is not what `~/hooks` names.
    fs.mkdirSync(path.join(s.dir, "hooks"));
    const home = await s.snap();
    fs.writeFileSync(path.join(s.home, "hooks", "pre-push"), "x\n");
    fs.writeFileSync(path.join(s.dir, "hooks", "pre-push"), "x\n");
    // Nor a folder of the tree named `~`.
    fs.mkdirSync(path.join(s.dir, "~", "hooks"), { recursive: true });
    fs.writeFileSync(path.join(s.dir, "~", "hooks", "pre-push"), "x\n");
    expect(await s.changes(home)).toEqual([]);
    // An in-tree hooks folder that does not exist yet: judged by its spelling, and compared once it does.
    await s.git(["config", "core.hooksPath", ".githooks"]);
    const missing = await s.snap();
    fs.mkdirSync(path.join(s.dir, ".githooks"));
    fs.writeFileSync(path.join(s.dir, ".githooks", "pre-commit"), "x\n");
    expect(await s.changes(missing)).toEqual(["hook core.hooksPath .githooks/pre-commit added"]);
  });

  it("each item's value: a config entry's digest over every value in order, a hook's digest with its mode, a folder by its type", async () => {
    const s = await setup();
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const file = `config file:${path.join(s.gitDir, "config")}`;
    await s.git(["config", "core.fsmonitor", "./evil"]);
    await s.git(["config", "remote.origin.fetch", "+a"]);
    await s.git(["config", "--add", "remote.origin.fetch", "+b"]);
    fs.writeFileSync(path.join(s.gitDir, "hooks", "run"), "#!/bin/sh\n", { mode: 0o755 });
    fs.writeFileSync(path.join(s.gitDir, "hooks", "plain"), "#!/bin/sh\n", { mode: 0o644 });
    fs.mkdirSync(path.join(s.gitDir, "hooks", "dir.d"), { mode: 0o755 });
    const { items } = await s.snap();
    expect(items[`${file} core.fsmonitor`]).toBe(sha("\0core.fsmonitor\n./evil"));
    expect(items[`${file} remote.origin.fetch`]).toBe(sha(`${sha("\0remote.origin.fetch\n+a")}\0remote.origin.fetch\n+b`));
    expect(items["hook hooks/run"]).toBe(`${sha("#!/bin/sh\n")} mode x`);
    expect(items["hook hooks/plain"]).toBe(`${sha("#!/bin/sh\n")} mode -`);
    expect(items["hook hooks/dir.d"]).toBe(`${sha(`type:${0o040000}`)} mode x`);
    // Every item names its origin and key: no empty entry of git's -z output is one.
    expect(
      Object.keys(items)
        .filter((k) => k.startsWith("config "))
        .every((k) => /^config \S+ \S+$/.test(k)),
    ).toBe(true);
  });

  it("only keys that start with branch. are the session's; a key holding branch. elsewhere is compared", async () => {
    const s = await setup();
    const before = await s.snap();
    await s.git(["config", "x.branch.y", "1"]);
    expect(await s.changes(before)).toEqual([`config file:${path.join(s.gitDir, "config")} x.branch.y added`]);
  });

  it("a folder outside any repository has no items; a git directory without a hooks folder has none of hooks", async () => {
    const plain = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-git-guard-plain-")));
    removeAfterTest(plain);
    const s = await setup();
    expect(await snapshotGitControl(plain, { env: { ...s.env, GIT_CEILING_DIRECTORIES: path.dirname(plain) } })).toEqual({
      dir: plain,
      items: {},
    });
    fs.rmSync(path.join(s.gitDir, "hooks"), { recursive: true, force: true });
    const { items } = await s.snap();
    expect(Object.keys(items).filter((k) => k.startsWith("hook "))).toEqual([]);
  });

  it("a linked worktree: its own git directory's hooks, config.worktree and info/attributes are compared, labelled as the worktree's", async () => {
    const s = await setup();
    const wt = path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-git-guard-wt-"))), "wt");
    removeAfterTest(path.dirname(wt));
    await s.git(["worktree", "add", "-q", "-b", "side", wt]);
    const wtGitDir = fs.realpathSync(path.join(s.gitDir, "worktrees", "wt"));
    const snap = () => snapshotGitControl(wt, { env: s.env });
    fs.writeFileSync(path.join(wtGitDir, "config.worktree"), "[core]\n\tpager = less\n");
    const before = await snap();
    expect(Object.keys(before.items)).toContain(`config file:${path.join(wtGitDir, "config.worktree")} core.pager`);
    fs.mkdirSync(path.join(wtGitDir, "hooks"), { recursive: true });
    fs.writeFileSync(path.join(wtGitDir, "hooks", "pre-commit"), "x\n");
    fs.mkdirSync(path.join(wtGitDir, "info"), { recursive: true });
    fs.writeFileSync(path.join(wtGitDir, "info", "attributes"), "* -diff\n");
    fs.writeFileSync(path.join(wtGitDir, "config.worktree"), "[core]\n\tpager = evil\n");
    fs.writeFileSync(path.join(s.gitDir, "hooks", "post-checkout"), "x\n");
    expect(await gitControlChanges(before, { env: s.env })).toEqual([
      `config file:${path.join(wtGitDir, "config.worktree")} core.pager changed`,
      "file worktree info/attributes added",
      "hook hooks/post-checkout added",
      "hook worktree hooks/pre-commit added",
    ]);
  });

  it("describes up to five changes and counts the rest, naming the checkout", () => {
    const six = ["a", "b", "c", "d", "e", "f"];
    expect(describeControlChanges("/w", six)).toBe(
      "the git configuration or hooks of /w changed while otto's sessions worked in it (a; b; c; d; e; and 1 more). A person must look before otto commits or pushes from this checkout.",
    );
    expect(describeControlChanges("/w", six.slice(0, 5))).toBe(
      "the git configuration or hooks of /w changed while otto's sessions worked in it (a; b; c; d; e). A person must look before otto commits or pushes from this checkout.",
    );
  });
});
