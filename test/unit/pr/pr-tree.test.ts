import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openPrTree, snapshotPrTree } from "../../../src/pr/index.ts";
import { commitAndPush, listGitWorktrees } from "../../../src/workspace/index.ts";
import { gitEnv } from "../../support/git.ts";
import { tempDir } from "../repo/fixtures.ts";
import { useFeatureClone } from "./feature-clone.ts";

/* Where a PR flow edits: the clean checkout, a temporary worktree of a dirty one, or nowhere (hands-off). */

const featureClone = useFeatureClone();

/** Every file of the tree (ignored and .git aside) with its bytes and mtime. */
function filesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = path.join(rel, entry.name);
      if (entry.name === ".git") continue;
      if (entry.isDirectory()) walk(p);
      else out[p] = `${fs.readFileSync(path.join(dir, p), "base64")}@${fs.statSync(path.join(dir, p)).mtimeMs}`;
    }
  };
  walk("");
  return out;
}

describe("openPrTree", () => {
  it("a clean checkout is used as it is", async () => {
    const repo = await featureClone();
    const tree = await openPrTree({
      dir: repo.dir,
      remote: "origin",
      strategy: "branch",
      branch: "feature",
      env: gitEnv(),
      label: "otto-test",
    });
    expect(tree).toMatchObject({ kind: "tree", dir: repo.dir, temporary: false });
  });

  it("a dirty checkout gets a temporary worktree at the remote branch; the fix pushed from it holds none of the user's files, which stay byte-identical; release removes it", async () => {
    const repo = await featureClone({ "a.txt": "one\n", ".gitignore": "build/\n" });
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "the user's edit\n");
    fs.writeFileSync(path.join(repo.dir, ".env"), "TOKEN=secret\n");
    fs.mkdirSync(path.join(repo.dir, "build"));
    fs.writeFileSync(path.join(repo.dir, "build", "out.js"), "ignored\n");
    const before = filesOf(repo.dir);
    const tree = await openPrTree({
      dir: repo.dir,
      remote: "origin",
      strategy: "branch",
      branch: "feature",
      env: gitEnv(),
      label: "otto-test",
      tempRoot: tempDir(),
    });
    if (tree.kind !== "tree") throw new Error("expected a tree");
    expect(tree.temporary).toBe(true);
    expect(tree.dir).not.toBe(repo.dir);
    expect(fs.readFileSync(path.join(tree.dir, "a.txt"), "utf8")).toBe("one\n");
    expect(fs.existsSync(path.join(tree.dir, ".env"))).toBe(false);

    // A session's fix, committed and pushed from the detached worktree (the flow snapshots the tree before the session).
    const baseline = await snapshotPrTree(tree.dir, gitEnv());
    fs.writeFileSync(path.join(tree.dir, "b.txt"), "the fix\n");
    const pushed = await commitAndPush({
      dir: tree.dir,
      branch: "feature",
      remote: "origin",
      message: "otto: fix",
      baseline,
      detached: true,
      env: gitEnv(),
    });
    expect(pushed.outcome).toBe("pushed");
    expect(await repo.remoteFile("b.txt", "feature")).toBe("the fix\n");
    expect(await repo.remoteFile("a.txt", "feature")).toBe("one\n");
    expect(await repo.gitRemote(["ls-tree", "-r", "--name-only", "feature"])).not.toContain(".env");

    expect(await tree.release()).toBeUndefined();
    expect(fs.existsSync(tree.dir)).toBe(false);
    expect((await listGitWorktrees(repo.dir, { env: gitEnv() })).map((w) => w.path)).toEqual([repo.dir]);
    expect(filesOf(repo.dir)).toEqual(before);
    expect(await repo.git(["rev-parse", "--abbrev-ref", "HEAD"])).toBe("feature");
  });

  it("hands-off and dirty: deferred, nothing created", async () => {
    const repo = await featureClone();
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "the user's edit\n");
    const tree = await openPrTree({
      dir: repo.dir,
      remote: "origin",
      strategy: "hands-off",
      branch: "feature",
      env: gitEnv(),
      label: "otto-test",
    });
    expect(tree).toEqual({ kind: "deferred", dir: repo.dir, changes: [".M a.txt"] });
    expect((await listGitWorktrees(repo.dir, { env: gitEnv() })).length).toBe(1);
  });

  it("ignored files alone do not make a checkout dirty", async () => {
    const repo = await featureClone({ "a.txt": "one\n", ".gitignore": "node_modules/\n" });
    fs.mkdirSync(path.join(repo.dir, "node_modules"));
    fs.writeFileSync(path.join(repo.dir, "node_modules", "x.js"), "x\n");
    const tree = await openPrTree({
      dir: repo.dir,
      remote: "origin",
      strategy: "hands-off",
      branch: "feature",
      env: gitEnv(),
      label: "otto-test",
    });
    expect(tree).toMatchObject({ kind: "tree", temporary: false });
  });
});
