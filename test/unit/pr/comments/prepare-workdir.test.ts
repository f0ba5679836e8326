import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OttoError } from "../../../../src/core/index.ts";
import { discardChanges, readyWorkdir } from "../../../../src/pr/comments/prepare-workdir.ts";
import { refuseUnpushed, runGit, snapshotTree, type GitRun } from "../../../../src/workspace/index.ts";
import { git, gitEnv, type Repo } from "../../../support/git.ts";
import { useFeatureClone } from "../feature-clone.ts";

/* The PR's tree before and after a comment session, with real git: a clone on `feature` and a bare origin. */

const setup = useFeatureClone();

const work = (repo: Repo) => ({ dir: repo.dir, remote: "origin", branch: "feature" });
const env = gitEnv();
const run: GitRun = (args, options) => runGit(args, { ...options, env });

async function refusal(p: Promise<unknown>): Promise<OttoError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OttoError);
  return error as OttoError;
}

describe("readyWorkdir: the local branch is the PR's head", () => {
  it("accepts a clone equal to the remote branch, and fast-forwards one that is behind", async () => {
    const repo = await setup();
    await expect(readyWorkdir(work(repo), env)).resolves.toMatchObject(work(repo));
    const other = path.join(path.dirname(repo.dir), "other");
    await git(["clone", "-q", "-b", "feature", repo.remote, other], path.dirname(repo.dir));
    await git(["-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "teammate"], other);
    await git(["push", "-q", "origin", "feature"], other);
    await readyWorkdir(work(repo), env);
    expect((await repo.log())[0]?.subject).toBe("teammate");
  });

  it("refuses unpushed local commits, naming them and the two ways out; nothing is reset", async () => {
    const repo = await setup();
    const sha = await repo.commit("Local experiment", { "a.txt": "local\n" });
    const error = await refusal(readyWorkdir(work(repo), env));
    expect(error.code).toBe("pr_local_ahead");
    expect(error.message).toContain(`has 1 commit(s) that are not on origin/feature`);
    expect(error.message).toContain(`${sha.slice(0, 7)} Local experiment`);
    expect(error.fix).toBe(
      `Push them (git -C ${repo.dir} push origin feature) or drop them (git -C ${repo.dir} reset --keep origin/feature), then run again.`,
    );
    expect(await repo.git(["rev-parse", "HEAD"])).toBe(sha);
  });

  it("refuses a branch that diverged from the remote (new commits on both sides)", async () => {
    const repo = await setup();
    await repo.commit("Mine", { "b.txt": "b\n" });
    const other = path.join(path.dirname(repo.dir), "other");
    await git(["clone", "-q", "-b", "feature", repo.remote, other], path.dirname(repo.dir));
    await git(["-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "theirs"], other);
    await git(["push", "-q", "origin", "feature"], other);
    const error = await refusal(readyWorkdir(work(repo), env));
    expect(error.message).toContain(" Mine");
  });

  it("refuseUnpushed is silent when the branch was never fetched (nothing to compare with)", async () => {
    const repo = await setup();
    await repo.commit("Local", { "b.txt": "b\n" });
    await expect(refuseUnpushed({ dir: repo.dir, remote: "origin", branch: "not-fetched", env })).resolves.toBeUndefined();
  });
});

describe("discardChanges: back to the tree before the session, and nothing else", () => {
  it("drops the session's edits, new files and its own commit, and nothing before", async () => {
    const repo = await setup();
    const start = await repo.git(["rev-parse", "HEAD"]);
    const baseline = await snapshotTree(run, repo.dir);
    await repo.commit("Model committed against its instructions", { "a.txt": "model\n" });
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "edited after\n");
    fs.writeFileSync(path.join(repo.dir, "new.txt"), "new\n");
    expect(await discardChanges(repo.dir, env, start, baseline)).toBe(true);
    expect(await repo.git(["rev-parse", "HEAD"])).toBe(start);
    expect(await repo.git(["status", "--porcelain"])).toBe("");
    expect(fs.readFileSync(path.join(repo.dir, "a.txt"), "utf8")).toBe("one\n");
  });

  it("does nothing when the session changed nothing", async () => {
    const repo = await setup();
    expect(await discardChanges(repo.dir, env, await repo.git(["rev-parse", "HEAD"]), await snapshotTree(run, repo.dir))).toBe(false);
  });

  it("a failed answer's cleanup leaves the user's untracked and ignored files byte for byte (no git clean)", async () => {
    const repo = await setup({ "a.txt": "one\n", ".gitignore": "build/\n" });
    // The user's: an ignored .env (through .git/info/exclude, which no reset restores), build output, a file made while the session ran.
    fs.writeFileSync(path.join(repo.dir, ".git", "info", "exclude"), ".env\n");
    fs.writeFileSync(path.join(repo.dir, ".env"), "API_KEY=sk-user-key-0123456789\n");
    fs.mkdirSync(path.join(repo.dir, "build"));
    fs.writeFileSync(path.join(repo.dir, "build", "out.js"), "built\n");
    const start = await repo.git(["rev-parse", "HEAD"]);
    const baseline = await snapshotTree(run, repo.dir);
    // The session un-ignores both, edits a.txt and makes a file; the answer then fails.
    fs.writeFileSync(path.join(repo.dir, ".git", "info", "exclude"), "");
    fs.writeFileSync(path.join(repo.dir, ".gitignore"), "");
    fs.writeFileSync(path.join(repo.dir, "a.txt"), "session\n");
    fs.writeFileSync(path.join(repo.dir, "session.txt"), "made by the session\n");
    expect(await discardChanges(repo.dir, env, start, baseline)).toBe(true);
    expect(fs.readFileSync(path.join(repo.dir, ".env"), "utf8")).toBe("API_KEY=sk-user-key-0123456789\n");
    expect(fs.readFileSync(path.join(repo.dir, "build", "out.js"), "utf8")).toBe("built\n");
    expect(fs.readFileSync(path.join(repo.dir, "a.txt"), "utf8")).toBe("one\n");
    expect(fs.readFileSync(path.join(repo.dir, ".gitignore"), "utf8")).toBe("build/\n");
    expect(fs.existsSync(path.join(repo.dir, "session.txt"))).toBe(false);
    expect(await repo.git(["rev-parse", "HEAD"])).toBe(start);
  });
});
