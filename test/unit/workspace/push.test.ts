import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLEAN_TREE, commitAndPush, runGit, snapshotTree } from "../../../src/workspace/index.ts";
import { git, gitEnv, type Repo } from "../../support/git.ts";
import { useFeatureClone } from "../pr/feature-clone.ts";

const featureClone = useFeatureClone();

/** A repo on branch `feature` tracking origin/feature, and a second clone to move the remote behind otto's back. */
async function setup(files: Record<string, string> = { "a.txt": "one\ntwo\nthree\n" }) {
  const repo = await featureClone(files);
  const other = await repo.other();
  const moveRemote = async (file: string, content: string) => {
    fs.writeFileSync(path.join(other, file), content);
    await git(["commit", "-qam", `remote change to ${file}`], other);
    await git(["push", "-q", "origin", "feature"], other);
  };
  return { repo, moveRemote };
}

const input = (repo: Repo, extra: Partial<Parameters<typeof commitAndPush>[0]> = {}) => ({
  dir: repo.dir,
  branch: "feature",
  remote: "origin",
  message: "otto: fix CI",
  baseline: CLEAN_TREE,
  env: gitEnv(),
  ...extra,
});

describe("commitAndPush", () => {
  it("commits what was left uncommitted and pushes it, fast-forward", async () => {
    const { repo } = await setup();
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "ONE\ntwo\nthree\n");
    const result = await commitAndPush(input(repo));
    expect(result).toMatchObject({ outcome: "pushed", committed: true, rebased: false });
    expect((await repo.remoteLog("feature"))[0]).toMatchObject({ sha: result.sha, subject: "otto: fix CI" });
    expect(await repo.remoteFile("a.txt", "feature")).toBe("ONE\ntwo\nthree\n");
  });

  it("commits only what changed since the baseline: the user's edit and untracked .env are neither committed nor pushed", async () => {
    const { repo } = await setup({ "a.txt": "one\n", "b.txt": "bee\n" });
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "the user's edit\n");
    fs.writeFileSync(path.join(repo.dir, ".env"), "TOKEN=secret\n");
    const baseline = await snapshotTree((args, options) => runGit(args, { ...options, env: gitEnv() }), repo.dir);
    fs.writeFileSync(path.join(repo.dir, "b.txt"), "BEE\n");
    const result = await commitAndPush(input(repo, { baseline }));
    expect(result).toMatchObject({ outcome: "pushed", committed: true, kept: [] });
    expect(await repo.remoteFile("b.txt", "feature")).toBe("BEE\n");
    expect(await repo.remoteFile("a.txt", "feature")).toBe("one\n");
    expect(await repo.remoteFile(".env", "feature")).toBeUndefined();
    expect(fs.readFileSync(path.join(repo.dir, "a.txt"), "utf8")).toBe("the user's edit\n");
    expect((await repo.git(["status", "--porcelain"])).split("\n").sort()).toEqual(["?? .env", "M a.txt"]);
  });

  it("says nothing to push when the remote already has everything", async () => {
    const { repo } = await setup();
    expect(await commitAndPush(input(repo))).toMatchObject({ outcome: "nothing", committed: false });
  });

  it("refuses a working tree on another branch", async () => {
    const { repo } = await setup();
    await repo.git(["switch", "-q", "main"]);
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "changed\n");
    const result = await commitAndPush(input(repo));
    expect(result.outcome).toBe("wrong_branch");
    expect(await repo.remoteFile("a.txt", "main")).toBe("one\ntwo\nthree\n");
  });

  it("rebases onto a branch that moved and pushes without force", async () => {
    const { repo, moveRemote } = await setup({ "a.txt": "one\n", "b.txt": "bee\n" });
    await moveRemote("b.txt", "BEE\n");
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "ONE\n");
    const result = await commitAndPush(input(repo));
    expect(result).toMatchObject({ outcome: "pushed", rebased: true, committed: true });
    const log = await repo.remoteLog("feature");
    expect(log.map((c) => c.subject).slice(0, 2)).toEqual(["otto: fix CI", "remote change to b.txt"]);
    expect(await repo.remoteFile("b.txt", "feature")).toBe("BEE\n");
  });

  it("aborts the rebase on conflicts it cannot resolve and pushes nothing", async () => {
    const { repo, moveRemote } = await setup({ "a.txt": "one\n" });
    await moveRemote("a.txt", "theirs\n");
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "ours\n");
    const result = await commitAndPush(input(repo, { resolveConflicts: async () => false }));
    expect(result.outcome).toBe("conflict");
    expect(result.detail).toContain("a.txt");
    expect(await repo.remoteFile("a.txt", "feature")).toBe("theirs\n");
    expect(await repo.git(["status", "--porcelain"])).toBe("");
  });

  it("continues the rebase once a resolution session fixed the conflict", async () => {
    const { repo, moveRemote } = await setup({ "a.txt": "one\n" });
    await moveRemote("a.txt", "theirs\n");
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "ours\n");
    const seen: string[][] = [];
    const result = await commitAndPush(
      input(repo, {
        resolveConflicts: async ({ dir, files }) => {
          seen.push(files);
          fs.writeFileSync(path.join(dir, "a.txt"), "theirs and ours\n");
          return true;
        },
      }),
    );
    expect(seen).toEqual([["a.txt"]]);
    expect(result).toMatchObject({ outcome: "pushed", rebased: true });
    expect(await repo.remoteFile("a.txt", "feature")).toBe("theirs and ours\n");
  });

  it("a developer's rebase.autoStash and rebase.updateRefs, with the user's edit in the tree: otto's rebase never stashes the user's edit nor moves their other branch", async () => {
    const { repo, moveRemote } = await setup({ "a.txt": "one\n", "b.txt": "bee\n" });
    // The user's global configuration, as a developer's ~/.gitconfig would have it.
    const global = path.join(path.dirname(repo.dir), "gitconfig");
    fs.writeFileSync(global, "[rebase]\n\tautoStash = true\n\tupdateRefs = true\n[merge]\n\tautoStash = true\n");
    const env = gitEnv({ GIT_CONFIG_GLOBAL: global });
    // An unpushed commit of the user's with a second branch on it, and an uncommitted edit of a file the remote changed too.
    fs.writeFileSync(path.join(repo.dir, "c.txt"), "see\n");
    await repo.git(["add", "c.txt"]);
    await repo.git(["commit", "-qm", "the user's unpushed work"]);
    await repo.git(["branch", "wip"]);
    const wip = await repo.git(["rev-parse", "wip"]);
    await moveRemote("a.txt", "theirs\n");
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "the user's edit\n");
    const baseline = await snapshotTree((args, options) => runGit(args, { ...options, env }), repo.dir);
    fs.writeFileSync(path.join(repo.dir, "b.txt"), "BEE\n");
    const result = await commitAndPush(input(repo, { baseline, env }));
    expect(result).toMatchObject({ outcome: "conflict", committed: true });
    expect(result.detail).toMatch(
      /had moved on origin and git would not rebase onto it .*unstaged changes.*Commit or stash your own changes/,
    );
    expect(await repo.remoteFile("b.txt", "feature")).toBe("bee\n");
    // The user's edit is where they left it, nothing in the stash, their branch where it was.
    expect(fs.readFileSync(path.join(repo.dir, "a.txt"), "utf8")).toBe("the user's edit\n");
    expect(await repo.git(["stash", "list"])).toBe("");
    expect(await repo.git(["status", "--porcelain"])).toBe("M a.txt");
    expect(await repo.git(["rev-parse", "wip"])).toBe(wip);
  });

  it("a developer's rebase.updateRefs: a clean tree rebases and pushes, and the user's other branch stays where it was", async () => {
    const { repo, moveRemote } = await setup({ "a.txt": "one\n", "b.txt": "bee\n" });
    const global = path.join(path.dirname(repo.dir), "gitconfig");
    fs.writeFileSync(global, "[rebase]\n\tautoStash = true\n\tupdateRefs = true\n");
    const env = gitEnv({ GIT_CONFIG_GLOBAL: global });
    fs.writeFileSync(path.join(repo.dir, "c.txt"), "see\n");
    await repo.git(["add", "c.txt"]);
    await repo.git(["commit", "-qm", "the user's unpushed work"]);
    await repo.git(["branch", "wip"]);
    const wip = await repo.git(["rev-parse", "wip"]);
    await moveRemote("a.txt", "theirs\n");
    fs.writeFileSync(path.join(repo.dir, "b.txt"), "BEE\n");
    const result = await commitAndPush(input(repo, { env }));
    expect(result).toMatchObject({ outcome: "pushed", rebased: true });
    expect(await repo.remoteFile("b.txt", "feature")).toBe("BEE\n");
    expect(await repo.git(["rev-parse", "wip"])).toBe(wip);
  });
});
