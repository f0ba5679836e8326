import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Repo } from "../../../src/config/index.ts";
import type { GitEnv } from "../../../src/workspace/index.ts";
import { createRepoWithRemote, gitEnv, removeAfterTest, type Repo as TestRepo } from "../../support/git.ts";

/** The runner's environment in tests: no GIT_* from the outside, no global or system git config. */
export const GIT: GitEnv = { env: gitEnv() };

/** A temp directory (symlinks resolved), removed after the test. */
export function tempDir(prefix = "otto-repo-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  removeAfterTest(dir);
  return dir;
}

/** A clone at `<tmp>/app` on main with a bare remote `origin` at `<tmp>/app.remote.git`. */
export async function clone(files?: Record<string, string>): Promise<TestRepo> {
  return createRepoWithRemote({ dir: path.join(tempDir(), "app"), ...(files ? { files } : {}) });
}

/** The resolved config entry for a clone (worktree strategy, users/me/{{name}} unless overridden). */
export function trackedRepo(repo: Pick<TestRepo, "dir">, overrides: Partial<Repo> = {}): Repo {
  return {
    name: "app",
    primary_dir: repo.dir,
    worktree_dir: `${repo.dir}-wt`,
    git_strategy: "worktree",
    branch_template: "users/me/{{name}}",
    branch_patterns: [],
    ...overrides,
  };
}

/** A directory holding an executable `git` script, for faking a hung or odd git. */
export function fakeGit(script: string): { dir: string; binary: string; env: Record<string, string> } {
  const dir = tempDir("otto-fake-git-");
  const binary = path.join(dir, "git");
  fs.writeFileSync(binary, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return { dir, binary, env: { ...gitEnv(), PATH: `${dir}${path.delimiter}${process.env.PATH ?? ""}` } };
}
