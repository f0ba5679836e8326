import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGit, settleControls, watchControls } from "../../../src/workspace/index.ts";
import { gitEnv } from "../../support/git.ts";

/*
 * control-watch's look at the index (its gitlinks, read by git-index.ts) against what a sandboxed
 * command can do to it without a new file (no sandbox needed to write these bytes: the tree and
 * its index are writable there): a gitlink written in place with the old size and times, in the
 * index or in the shared index a split index names, and an index otto cannot read.
 */

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

const ENV = gitEnv();
const git = (root: string, ...args: string[]) => execFileSync("git", args, { cwd: root, env: ENV, encoding: "utf8" });

function repo(): { root: string; tree: { root: string; gitDirs: string[] }; index: string } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-watch-index-")));
  roots.push(root);
  git(root, "init", "-q");
  fs.writeFileSync(path.join(root, "README.md"), "hello\n");
  // Not racily clean: git keeps a split index's entries in the shared index alone, not again as replacements.
  fs.utimesSync(path.join(root, "README.md"), new Date("2020-01-01"), new Date("2020-01-01"));
  git(root, "add", "README.md");
  git(root, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "init");
  return { root, tree: { root, gitDirs: [path.join(root, ".git")] }, index: path.join(root, ".git", "index") };
}

/** Makes the first entry of the index file `file` a gitlink: same bytes but its mode, written in place, its times put back. */
function gitlinkInPlace(file: string): void {
  const ref = `${file}.times`;
  execFileSync("touch", ["-r", file, ref]);
  const bytes = fs.readFileSync(file);
  bytes.writeUInt32BE(0o160000, 12 + 24);
  fs.writeFileSync(file, bytes);
  execFileSync("touch", ["-r", ref, file]);
  fs.rmSync(ref);
}

const settle = (watch: ReturnType<typeof watchControls>) =>
  settleControls(watch, ENV, (args, options) => runGit(args, { ...options, env: ENV }));

describe("control-watch and the index", () => {
  it("a gitlink written in place into the index, size and times kept: seen by its change time, taken out", async () => {
    const { root, tree, index } = repo();
    const watch = watchControls(tree);
    const ino = fs.statSync(index).ino;
    gitlinkInPlace(index);
    expect(fs.statSync(index).ino).toBe(ino);
    expect(git(root, "ls-files", "-s")).toMatch(/^160000 .*\tREADME\.md$/m);
    const settled = await settle(watch);
    expect(settled.gitlinks).toEqual(["README.md"]);
    expect(git(root, "ls-files", "-s")).toBe("");
  });

  it("a split index: a gitlink only the shared index holds is taken out; one written in place into the shared index, the index file untouched, too", async () => {
    const { root, tree, index } = repo();
    // The command adds the gitlink and splits the index: every entry moves into sharedindex.<hash>.
    let watch = watchControls(tree);
    git(root, "update-index", "--add", "--cacheinfo", `160000,${git(root, "rev-parse", "HEAD").trim()},vendorlib`);
    git(root, "update-index", "--split-index");
    expect((await settle(watch)).gitlinks).toEqual(["vendorlib"]);
    expect(git(root, "ls-files", "-s")).not.toMatch(/^160000 /m);
    // The user's split index; the command rewrites the shared index in place, keeping its name, size and times.
    git(root, "update-index", "--no-split-index");
    git(root, "update-index", "--split-index");
    const before = fs.readFileSync(index);
    const link = before.indexOf("link") + 8;
    const shared = path.join(root, ".git", `sharedindex.${before.toString("hex", link, link + 20)}`);
    watch = watchControls(tree);
    gitlinkInPlace(shared);
    expect(fs.readFileSync(index)).toEqual(before);
    expect(git(root, "ls-files", "-s")).toMatch(/^160000 .*\tREADME\.md$/m);
    expect((await settle(watch)).gitlinks).toEqual(["README.md"]);
    expect(git(root, "ls-files", "-s")).not.toMatch(/^160000 /m);
  });

  it("an index otto cannot read: the look before a command throws (the command does not run)", () => {
    const { tree, index } = repo();
    const bytes = fs.readFileSync(index);
    bytes.writeUInt32BE(7, 4);
    fs.writeFileSync(index, bytes);
    expect(() => watchControls(tree)).toThrow(/cannot read the git index/);
  });

  it("an index made unreadable by the command: the other branches are put back first, and the look after says what it could not read", async () => {
    const { root, tree, index } = repo();
    const head = git(root, "rev-parse", "HEAD").trim();
    git(root, "branch", "release");
    const watch = watchControls(tree);
    fs.writeFileSync(path.join(root, ".git", "refs", "heads", "release"), `${"0".repeat(39)}1\n`);
    const bytes = fs.readFileSync(index);
    bytes.writeUInt32BE(7, 4);
    fs.writeFileSync(index, bytes);
    const settled = await settle(watch);
    expect(settled.refs).toEqual(["branch release"]);
    expect(git(root, "rev-parse", "release").trim()).toBe(head);
    expect(settled.failed).toEqual([
      expect.stringMatching(new RegExp(`^the index ${index}, which otto cannot read \\(.*cannot read the git index`)),
    ]);
  });
});
