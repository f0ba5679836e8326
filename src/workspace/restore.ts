import { gitFailure } from "./git-errors.ts";
import { removeInside } from "./inside-tree.ts";
import { changesSince, type GitRun, type TreeSnapshot } from "./snapshot.ts";

/*
 * Undoing a session's work without touching anything else. `git reset --hard` + `git clean -fd`
 * would also delete a file the user made (an untracked note, an ignored `.env` a session
 * un-ignored) and drop a file the session force-added and committed from disk. Otto restores only
 * the paths that changed since the snapshot it took before the session: a file tracked at the
 * starting commit gets that commit's content back, a file the session made is deleted. What the
 * user had (dirty, untracked or ignored at snapshot time) stays byte for byte. Empty folders a
 * removed file leaves behind stay: git does not see them, and an empty folder may be the user's.
 */

const spec = ["--pathspec-from-file=-", "--pathspec-file-nul"];
const nul = (paths: readonly string[]): string => paths.map((p) => `${p}\0`).join("");

/** Passes: restoring .gitignore can make a file the session made show up (it had ignored it). */
const MAX_PASSES = 3;

/**
 * Puts HEAD back at `startHead` (the session's own commits are undone, their files kept on disk
 * until judged like the rest) and restores what the session changed since `baseline`. True when
 * anything was done.
 */
export async function restoreChanges(git: GitRun, dir: string, options: { startHead: string; baseline: TreeSnapshot }): Promise<boolean> {
  const inDir =
    (cwd: string) =>
    async (args: string[], input?: string): Promise<string> => {
      const result = await git(args, { cwd, ...(input !== undefined ? { input } : {}) });
      if (result.exitCode !== 0) throw gitFailure(args, cwd, result);
      return result.stdout;
    };
  // Paths are relative to the top of the tree, and so are the pathspecs read from stdin there.
  const root = (await inDir(dir)(["rev-parse", "--show-toplevel"])).trim();
  const run = inDir(root);
  let changed = false;
  if ((await run(["rev-parse", "HEAD"])).trim() !== options.startHead) {
    // --soft: HEAD only. The commits' files are still on disk and in the index, judged below.
    await run(["reset", "-q", "--soft", options.startHead]);
    changed = true;
  }
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const changes = await changesSince(git, root, options.baseline);
    const staged = [...changes.paths, ...changes.ignored];
    if (staged.length === 0) break;
    // The index of these paths only, back to the start (a user's ignored file a session force-added is unstaged, kept on disk).
    await run(["--literal-pathspecs", "reset", "-q", options.startHead, ...spec], nul(staged));
    if (changes.paths.length === 0) break;
    changed = true;
    // The index now holds the start's version of these paths (ls-files takes no pathspec file: the whole index, names only).
    const tracked = new Set((await run(["ls-files", "-z"])).split("\0").filter(Boolean));
    const restore = changes.paths.filter((p) => tracked.has(p));
    if (restore.length > 0)
      await run(["--literal-pathspecs", "restore", "-q", `--source=${options.startHead}`, "--worktree", ...spec], nul(restore));
    // A file or link the session made; never a folder (a nested repository), never through a link on the way.
    for (const p of changes.paths.filter((x) => !tracked.has(x))) await removeInside(root, p);
  }
  return changed;
}
