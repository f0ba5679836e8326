/*
 * The files that decide what git runs and where it pushes: a git directory's config (and
 * config.worktree), its hooks, and the `.git` file of a worktree that points at it. A session has
 * no business writing them; only otto's code and the user do.
 */

/** True when `file` (as written, relative or absolute) is a git directory's config, hooks or `.git` itself. */
export function isGitControlPath(file: string): boolean {
  const segments = file
    .replace(/\\/g, "/")
    .split("/")
    .filter((s) => s !== "" && s !== ".");
  const at = segments.lastIndexOf(".git");
  if (at < 0) return false;
  const after = segments.slice(at + 1);
  if (after.length === 0) return true;
  return after.some((s) => s === "hooks" || s.startsWith("config"));
}
