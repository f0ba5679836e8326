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
});
