import { OttoError, redact } from "../core/index.ts";
import { MAX_SCAN_BYTES, MIN_SCANNED_SECRET } from "./secret-scan.ts";
import { ignoredAt, type GitRun, type TreeSnapshot } from "./snapshot.ts";

/*
 * What otto pushes is HEAD, and HEAD may hold a commit a session made itself (against its
 * instructions: `git add -f .env && git commit`). commitChanges guards otto's own commit; this
 * guards the rest of what would be pushed: no file that was ignored when the flow took its
 * snapshot, no file holding a known secret. Read from every commit to be pushed (its blobs), not the disk: a file
 * committed and deleted again is still in the history that would be pushed.
 */

/** Files read for secrets across those commits; beyond this, the first ones. */
const MAX_SCANNED_FILES = 200;

/** The commits' files read: a session's own commits are few and small; beyond these, the first ones. */
const MAX_COMMITS = 50;

/** Each commit of `base..HEAD` with the files it adds or changes (a file added then deleted is still in history). */
async function commitFiles(git: GitRun, dir: string, base: string): Promise<Array<{ commit: string; path: string }>> {
  const list = await git(["rev-list", "--reverse", `${base}..HEAD`], { cwd: dir });
  if (list.exitCode !== 0) return [];
  const out: Array<{ commit: string; path: string }> = [];
  for (const commit of list.stdout.split("\n").filter(Boolean).slice(0, MAX_COMMITS)) {
    const files = await git(
      ["diff-tree", "-r", "-z", "--root", "--no-commit-id", "--name-only", "--no-renames", "--diff-filter=d", commit],
      { cwd: dir },
    );
    for (const p of files.stdout.split("\0").filter(Boolean)) out.push({ commit, path: p });
  }
  return out;
}

/** Refuses (OttoError) when a commit of `base..HEAD` adds or changes a file ignored at snapshot time, or one holding a known secret. */
export async function refuseLeakingCommits(
  git: GitRun,
  dir: string,
  input: { base: string; baseline: TreeSnapshot; secrets: readonly string[]; remote: string; branch: string },
): Promise<void> {
  const files = await commitFiles(git, dir, input.base);
  const ignored = [...new Set(files.filter((f) => ignoredAt(input.baseline, f.path)).map((f) => f.path))];
  const needles = [...new Set(input.secrets)].filter((s) => s.length >= MIN_SCANNED_SECRET);
  const secret = new Set<string>();
  if (needles.length > 0) {
    for (const f of files.filter((x) => !ignored.includes(x.path)).slice(0, MAX_SCANNED_FILES)) {
      if (secret.has(f.path)) continue;
      const size = await git(["cat-file", "-s", `${f.commit}:${f.path}`], { cwd: dir });
      if (size.exitCode !== 0 || Number(size.stdout.trim()) > MAX_SCAN_BYTES) continue;
      const blob = await git(["cat-file", "blob", `${f.commit}:${f.path}`], { cwd: dir });
      if (blob.exitCode === 0 && needles.some((n) => blob.stdout.includes(n))) secret.add(f.path);
    }
  }
  if (ignored.length === 0 && secret.size === 0) return;
  const named = (list: string[]) => list.slice(0, 10).join(", ") + (list.length > 10 ? ` and ${list.length - 10} more` : "");
  const why = [
    ...(ignored.length > 0
      ? [
          `${named(ignored)}: git ignored ${ignored.length === 1 ? "it" : "them"} when otto started, and a session committed ${ignored.length === 1 ? "it" : "them"}`,
        ]
      : []),
    ...(secret.size > 0 ? [`${named([...secret])}: ${secret.size === 1 ? "holds" : "hold"} a secret otto knows`] : []),
  ].join("; ");
  throw new OttoError(
    secret.size > 0 ? "secret_in_commit" : "ignored_file_in_commit",
    redact(`Nothing pushed: the commits to push to ${input.branch} hold files that must not leave this machine (${why}).`, input.secrets),
    `Drop the commits and keep every file on disk (git -C ${dir} reset ${input.remote}/${input.branch}), look at what the session changed, then run the command again.`,
  );
}
