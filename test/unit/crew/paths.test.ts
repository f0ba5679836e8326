import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findCrewRoot } from "../../../src/crew/index.ts";
import { createRepo, git, gitEnv, type Repo } from "../../support/index.ts";

let repo: Repo | undefined;
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
});

describe("where a crew lives", () => {
  it("is the main clone's root, from the clone, a subfolder or a worktree", async () => {
    repo = await createRepo({ remote: false });
    const env = gitEnv();
    const real = fs.realpathSync(repo.dir);
    const worktree = `${repo.dir}-wt`;
    await git(["worktree", "add", "-q", worktree, "-b", "side"], repo.dir);
    fs.mkdirSync(path.join(repo.dir, "src"));
    expect(await findCrewRoot(repo.dir, env)).toBe(real);
    expect(await findCrewRoot(path.join(repo.dir, "src"), env)).toBe(real);
    expect(await findCrewRoot(worktree, env)).toBe(real);
    fs.rmSync(worktree, { recursive: true, force: true });
  });

  it("is the directory itself outside git", async () => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync("/tmp"), "otto-crew-nogit-"));
    expect(await findCrewRoot(dir, gitEnv({ GIT_CEILING_DIRECTORIES: path.dirname(dir) }))).toBe(dir);
    fs.rmSync(dir, { recursive: true });
  });
});
