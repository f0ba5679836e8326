import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { commitAll, commitAndPush, gitControlChanges, runGit, snapshotGitControl, snapshotTree } from "../../../src/workspace/index.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";

describe("snapshotGitControl / gitControlChanges", () => {
  let repo: Repo | undefined;
  afterEach(() => repo?.cleanup());
  const env = gitEnv({ GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" });

  it("sees a planted hook, a config change and a core.hooksPath target change; ignores branch tracking and commits", async () => {
    repo = await createRepo();
    const before = await snapshotGitControl(repo.dir, { env });
    await repo.commit("work", { "x.txt": "x\n" });
    await repo.git(["branch", "--set-upstream-to=origin/main"]);
    expect(await gitControlChanges(before, { env })).toEqual([]);

    fs.writeFileSync(path.join(repo.dir, ".git/hooks/pre-push"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    await repo.git(["config", "remote.origin.pushurl", "/tmp/elsewhere.git"]);
    const changes = await gitControlChanges(before, { env });
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^hook hooks\/pre-push added$/),
        expect.stringMatching(/remote\.origin\.pushurl added$/),
      ]),
    );
    expect(changes.join(" ")).not.toContain("/tmp/elsewhere.git");

    await repo.git(["config", "core.hooksPath", ".husky"]);
    fs.mkdirSync(path.join(repo.dir, ".husky"));
    const withPath = await snapshotGitControl(repo.dir, { env });
    fs.writeFileSync(path.join(repo.dir, ".husky/pre-push"), "#!/bin/sh\n", { mode: 0o755 });
    expect(await gitControlChanges(withPath, { env })).toEqual(["hook core.hooksPath .husky/pre-push added"]);
  });

  it("commitAndPush pushes nothing when the hooks changed since the snapshot", async () => {
    repo = await createRepo();
    const guard = await snapshotGitControl(repo.dir, { env });
    const baseline = await snapshotTree((args, o) => runGit(args, { ...o, env }), repo.dir);
    const remoteBefore = await repo.gitRemote(["rev-parse", "main"]);
    fs.writeFileSync(path.join(repo.dir, "fix.txt"), "fix\n");
    fs.writeFileSync(path.join(repo.dir, ".git/hooks/pre-commit"), "#!/bin/sh\ntouch ran\n", { mode: 0o755 });
    const result = await commitAndPush({ dir: repo.dir, branch: "main", remote: "origin", message: "fix", env, guard, baseline });
    expect(result.outcome).toBe("tampered");
    expect(result.detail).toMatch(/Nothing committed or pushed.*hook hooks\/pre-commit added/);
    expect(result.committed).toBe(false);
    expect(await repo.gitRemote(["rev-parse", "main"])).toBe(remoteBefore);
    expect(fs.existsSync(path.join(repo.dir, "ran"))).toBe(false);

    fs.rmSync(path.join(repo.dir, ".git/hooks/pre-commit"));
    const pushed = await commitAndPush({ dir: repo.dir, branch: "main", remote: "origin", message: "fix", env, guard, baseline });
    expect(pushed.outcome).toBe("pushed");
    expect(await repo.gitRemote(["rev-parse", "main"])).toBe(pushed.sha);
  });

  it("commitAll (execute, build) commits nothing and runs no hook when a session planted one", async () => {
    repo = await createRepo();
    const git = (args: string[], o: { cwd: string }) => runGit(args, { ...o, env });
    const snapshot = await snapshotGitControl(repo.dir, { env });
    const baseline = await snapshotTree(git, repo.dir);
    const head = await repo.git(["rev-parse", "HEAD"]);
    fs.writeFileSync(path.join(repo.dir, "task.txt"), "done\n");
    fs.writeFileSync(path.join(repo.dir, ".git/hooks/pre-commit"), "#!/bin/sh\ntouch ran\n", { mode: 0o755 });
    const error = await commitAll(git, repo.dir, "feat: phase 1", { baseline, guard: { snapshot, env } }).catch((e: unknown) => e);
    expect(isOttoError(error) && error.code).toBe("git_control_changed");
    expect(String((error as Error).message)).toMatch(/Nothing committed: .*hook hooks\/pre-commit added/);
    expect(await repo.git(["rev-parse", "HEAD"])).toBe(head);
    expect(fs.existsSync(path.join(repo.dir, "ran"))).toBe(false);
    expect(fs.readFileSync(path.join(repo.dir, "task.txt"), "utf8")).toBe("done\n");
  });
});

describe("snapshotGitControl: info/attributes", () => {
  let repo: Repo | undefined;
  afterEach(() => repo?.cleanup());

  it("sees .git/info/attributes written, changed or removed (it is in no diff, and -diff there hides a change from a reviewer)", async () => {
    repo = await createRepo({ remote: false });
    const env = gitEnv();
    const before = await snapshotGitControl(repo.dir, { env });
    const file = path.join(repo.dir, ".git/info/attributes");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "*.test.js -diff\n");
    expect(await gitControlChanges(before, { env })).toEqual(["file info/attributes added"]);
    const written = await snapshotGitControl(repo.dir, { env });
    fs.writeFileSync(file, "*.js -diff\n");
    expect(await gitControlChanges(written, { env })).toEqual(["file info/attributes changed"]);
    fs.rmSync(file);
    expect(await gitControlChanges(written, { env })).toEqual(["file info/attributes removed"]);
  });
});
