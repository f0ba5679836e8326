import { isOttoError, OttoError } from "../core/index.ts";
import type { Repo } from "../config/index.ts";
import { branchExists, currentBranch, defaultBranch, runGit, type GitEnv } from "../workspace/index.ts";
import { renderBranchName } from "./branch-template.ts";
import { findRepo } from "./find-repo.ts";

/*
 * Where a run commits (execute, task run, build). Runs never commit onto the repository's default
 * branch: started there, they first make the spec's branch and switch to it, which keeps every
 * uncommitted change of the user where it is (the new branch starts at HEAD). On any other branch,
 * and in a hands-off repo, they commit where they stand; `--here` opts out.
 */

export interface RunBranchInput {
  /** The repository's top level. */
  root: string;
  /** The spec (or build target) the run is for: it names the branch. */
  slug: string;
  /** --here: commit on the current branch, whatever it is. */
  here: boolean;
  repos: readonly Repo[];
  git?: GitEnv;
}

export interface RunBranch {
  /** The branch the run commits on (undefined on a detached HEAD, where nothing changes). */
  branch: string | undefined;
  /** The branch was made (or switched to) for this run. */
  switched: boolean;
  /** One line for the run's summary, when there is something to say. */
  note?: string;
}

/** The branch a run on the default branch moves to: the tracked repo's branch_template, else `otto/<slug>`. */
export function runBranchName(slug: string, repo: Repo | undefined): string {
  return repo ? renderBranchName(repo.branch_template, slug) : `otto/${slug}`;
}

async function trackedRepo(input: RunBranchInput): Promise<Repo | undefined> {
  if (input.repos.length === 0) return undefined;
  try {
    return await findRepo(input.repos, { cwd: input.root, ...(input.git ? { git: input.git } : {}) });
  } catch (error) {
    if (isOttoError(error)) return undefined;
    throw error;
  }
}

/** Makes sure the run does not commit onto the default branch; see the module comment. */
export async function placeRun(input: RunBranchInput): Promise<RunBranch> {
  const git = input.git ?? {};
  const branch = await currentBranch(input.root, git);
  if (!branch) return { branch: undefined, switched: false };
  if (input.here) return { branch, switched: false };
  const main = await defaultBranch(input.root, git);
  if (branch !== main) return { branch, switched: false };
  const repo = await trackedRepo(input);
  if (repo?.git_strategy === "hands-off")
    return { branch, switched: false, note: `Committing on ${branch}: the repo '${repo.name}' is hands-off.` };
  const target = runBranchName(input.slug, repo);
  const exists = await branchExists(input.root, target, git);
  // A new branch starts at HEAD, so switching to it cannot touch the working tree. An existing one
  // (a resumed run) is switched to only when git can do so without overwriting a local change.
  const args = exists ? ["switch", "--quiet", target] : ["switch", "--quiet", "-c", target];
  const result = await runGit(args, { ...git, cwd: input.root });
  if (result.exitCode !== 0) {
    throw new OttoError(
      "run_branch",
      `This run commits on ${target}, not on ${branch} (the default branch), but git could not switch to it: ${(result.stderr || result.stdout).trim().split("\n")[0] ?? ""}`,
      `Commit or stash your changes to the files git names and run again, or switch yourself (\`git switch ${target}\`), or pass --here to commit on ${branch}.`,
    );
  }
  return {
    branch: target,
    switched: true,
    note: `${exists ? "Switched to" : "Created"} the branch ${target} from ${branch} (the default branch): the run commits there${repo ? ` (the repo '${repo.name}', branch_template)` : ""}. --here commits on ${branch} instead.`,
  };
}
