import type { Env } from "../core/index.ts";
import { addTemporaryWorktree, readStatus, snapshotTree, runGit, type TreeSnapshot } from "../workspace/index.ts";

/*
 * Where a PR flow (the fix, a comment's AGREE fix, the review loop's fixes) edits and commits:
 * - the PR's checkout (src/repo/map-pr.ts) when it is clean;
 * - a temporary worktree of the PR branch when the checkout holds uncommitted or untracked work
 *   (ignored files do not count), so the user's files stay exactly as they are;
 * - nowhere with the hands-off strategy: otto does not even add a worktree to that repository;
 *   the flow is deferred until the checkout is clean.
 * The tree's baseline (what a commit may not take) is taken by the flow with `snapshotPrTree`
 * once the tree is at the PR's head: a fast-forward can change what git ignores.
 */

export interface PrTreeInput {
  /** The PR's checkout (PrWorkdir). */
  dir: string;
  remote: string;
  strategy: "worktree" | "branch" | "hands-off" | "cwd";
  branch: string;
  env: Env;
  /** Folder name prefix of a temporary worktree, e.g. "otto-fix-12". */
  label: string;
  tempRoot?: string;
}

export type PrTree =
  | {
      kind: "tree";
      dir: string;
      /** otto's temporary worktree (detached HEAD; push HEAD to the branch). */
      temporary: boolean;
      /** For the PR document: where the work happened, and why. */
      how: string;
      /** Removes a temporary worktree; says what it could not remove. */
      release: () => Promise<string | undefined>;
    }
  | { kind: "deferred"; dir: string; changes: string[] };

export async function openPrTree(input: PrTreeInput): Promise<PrTree> {
  const status = await readStatus(input.dir, { env: input.env });
  if (!status.dirty) {
    return { kind: "tree", dir: input.dir, temporary: false, how: `in ${input.dir}`, release: async () => undefined };
  }
  if (input.strategy === "hands-off") return { kind: "deferred", dir: input.dir, changes: status.changes };
  const worktree = await addTemporaryWorktree({
    repoDir: input.dir,
    remote: input.remote,
    branch: input.branch,
    env: input.env,
    label: input.label,
    ...(input.tempRoot ? { tempRoot: input.tempRoot } : {}),
  });
  const n = status.changes.length;
  return {
    kind: "tree",
    dir: worktree.dir,
    temporary: true,
    how: `in a temporary worktree of ${input.remote}/${input.branch} (${input.dir} has ${n} uncommitted change${n === 1 ? "" : "s"} of yours, left untouched)`,
    release: worktree.release,
  };
}

/**
 * What the tree holds before the flow's first session, uncommitted and ignored: commits take only
 * what changed since and never a file git ignored here. Taken after the tree was brought to the
 * PR's head (a fast-forward that changes .gitignore changes what is ignored).
 */
export function snapshotPrTree(dir: string, env: Env): Promise<TreeSnapshot> {
  return snapshotTree((args, options) => runGit(args, { ...options, env }), dir);
}

/** The PR document's note and the notification's text when a hands-off checkout is dirty. */
export function deferredText(
  pr: { number: number },
  tree: { dir: string; changes: string[] },
  command: string,
): { title: string; text: string } {
  const list = tree.changes.slice(0, 5).join(", ") + (tree.changes.length > 5 ? `, … (${tree.changes.length} in all)` : "");
  return {
    title: `PR #${pr.number}: your checkout has uncommitted changes; otto did not touch it`,
    text: `${tree.dir} (hands-off) has uncommitted changes (${list}). otto changed nothing there and ran no session. Commit or stash them, then run ${command}.`,
  };
}
