import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "../config/index.ts";
import { OttoError, type Env } from "../core/index.ts";
import { addWorktree, findRepo, worktreeDirOf } from "../repo/index.ts";
import { currentBranch } from "../workspace/index.ts";
import type { Agent } from "./schema.ts";

/**
 * `spawn --worktree <w>`: the agent's own working tree, made with the repos feature (the tracked
 * repo of the current directory, or --repo): a new worktree by the repo's strategy, or the one
 * already at `<worktree_dir>/<w>` (made earlier with /otto-worktree add). With the branch strategy
 * the "worktree" is the primary dir on a new branch, which parallel agents share.
 */
export async function agentWorktree(input: {
  cwd: string;
  name: string;
  repo?: string;
  env: Env;
}): Promise<NonNullable<Agent["worktree"]>> {
  const loaded = await loadConfig({ directory: input.cwd, env: input.env });
  const git = { env: input.env };
  const repo = await findRepo(loaded.config.repos, { name: input.repo, cwd: input.cwd, git });
  const existing = path.join(worktreeDirOf(repo), input.name);
  if (repo.git_strategy === "worktree" && fs.existsSync(existing)) {
    const branch = await currentBranch(existing, git);
    if (branch === undefined) {
      throw new OttoError(
        "crew_worktree",
        `${existing} exists but is not a worktree on a branch.`,
        `Remove it or pick another --worktree name.`,
      );
    }
    return { name: input.name, branch, dir: existing };
  }
  const added = await addWorktree(repo, input.name, git);
  return { name: input.name, branch: added.branch, dir: added.dir };
}
