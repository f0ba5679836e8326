import { OttoError } from "../core/index.ts";
import { gitFailure } from "./git-errors.ts";
import type { GitRun } from "./snapshot.ts";

/*
 * A gitlink (mode 160000) is a pointer to another repository's commit: a push that adds or moves
 * one hands whoever clones with submodules a repository a session chose, and makes otto's own git
 * descend into a nested repository whose configuration a session wrote. Otto's commits never take
 * one (commit.ts leaves nested repositories out); this refuses a session's own commit that does.
 */

const GITLINK = "160000";

/** The paths whose gitlink a commit of `base..HEAD` adds or changes (every commit, not only the end result). */
async function gitlinksSince(git: GitRun, dir: string, base: string): Promise<string[]> {
  const args = ["rev-list", `${base}..HEAD`];
  const list = await git(args, { cwd: dir });
  if (list.exitCode !== 0) throw gitFailure(args, dir, list);
  const found = new Set<string>();
  for (const commit of list.stdout.split("\n").filter(Boolean)) {
    // -m: a merge against each parent; raw records are ":<old mode> <new mode> <old> <new> <status>\0<path>\0".
    const raw = await git(["diff-tree", "-r", "-z", "-m", "--root", "--no-commit-id", "--no-renames", commit], { cwd: dir });
    const fields = raw.stdout.split("\0");
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [, newMode, , , status] = (fields[i] ?? "").split(" ");
      if (newMode === GITLINK && status !== "D") found.add(fields[i + 1] ?? "");
    }
  }
  return [...found].sort();
}

/** Refuses (OttoError `gitlink_in_commit`) when a commit of `base..HEAD` adds or changes a gitlink. */
export async function refuseGitlinks(git: GitRun, dir: string, input: { base: string; remote: string; branch: string }): Promise<void> {
  const links = await gitlinksSince(git, dir, input.base);
  if (links.length === 0) return;
  const list = links.slice(0, 10).join(", ") + (links.length > 10 ? ` and ${links.length - 10} more` : "");
  throw new OttoError(
    "gitlink_in_commit",
    `Nothing pushed: the commits to push to ${input.branch} add or change ${links.length === 1 ? "a submodule pointer" : "submodule pointers"} (${list}); otto never pushes a nested repository a session made or moved.`,
    `Drop the commits and keep every file on disk (git -C ${dir} reset ${input.remote}/${input.branch}), look at what the session changed, then run the command again; change a submodule by hand if you mean to.`,
  );
}
