import { OttoError, isOttoError, redact } from "../core/index.ts";
import { ignoredCopies } from "./ignored-content.ts";
import { MIN_SCANNED_SECRET } from "./secret-scan.ts";
import { scanPushedMetadata } from "./pushed-metadata.ts";
import { ignoredAt, type GitRun, type TreeSnapshot } from "./snapshot.ts";

/*
 * What otto pushes is HEAD, and HEAD may hold a commit a session made itself (against its
 * instructions: `git add -f .env && git commit`). commitChanges guards otto's own commit; this
 * guards the rest of what would be pushed: no file that was ignored when the flow took its
 * snapshot, no ignored file's content under another name, no file holding a known secret. Read
 * from every commit to be pushed (its blobs), not the disk: a file committed and deleted again is
 * still in the history that would be pushed. What leaves besides the blobs (each commit's message,
 * author and committer, its trees' names, the tags and notes on it) is read too (pushed-metadata.ts).
 *
 * Every commit and every blob is read; there is no "first N". What cannot be read whole (more
 * commits than MAX_PUSH_COMMITS, a blob over MAX_PUSH_BLOB_BYTES while there are secrets to search
 * for) refuses the push (`push_scan_too_large`): a limit that skipped would let the 51st commit
 * through unread.
 */

/** Commits one push may carry: a fix flow's session makes a handful; past this otto refuses rather than read part. */
export const MAX_PUSH_COMMITS = 10_000;

/** A blob bigger than this (32 MiB, half of runGit's output cap) is not searched for secrets: a push carrying one is refused. */
export const MAX_PUSH_BLOB_BYTES = 32 * 1024 * 1024;

/** runGit's cap on what git prints: the list of files of every commit must fit in it. */
const MAX_LISTING_BYTES = 64 * 1024 * 1024;

interface PushedFile {
  path: string;
  /** The blob the commit gives it. */
  blob: string;
  mode: string;
}

const tooLarge = (why: string, dir: string, remote: string, branch: string): OttoError =>
  new OttoError(
    "push_scan_too_large",
    `Nothing pushed: otto reads every commit and file it pushes, and ${why}.`,
    `Look at the commits (git -C ${dir} log ${remote}/${branch}..HEAD --stat); drop what should not go (git -C ${dir} reset ${remote}/${branch} keeps every file on disk), or push by hand after checking them.`,
  );

/** Pure: `diff-tree -r -z --raw` output (commit ids and all) as the files each entry adds or changes. */
export function parseRawDiff(text: string): PushedFile[] {
  const fields = text.split("\0");
  const out: PushedFile[] = [];
  for (let i = 0; i < fields.length; i++) {
    const meta = fields[i] ?? "";
    if (!meta.startsWith(":")) continue;
    const [, mode = "", , blob = "", status = ""] = meta.slice(1).split(" ");
    const file = fields[++i] ?? "";
    if (file && !status.startsWith("D") && !/^0+$/.test(blob)) out.push({ path: file, blob, mode });
  }
  return out;
}

/** The commits of `base..HEAD`, and each file every one adds or changes (merges against each parent), with its blob id. */
async function pushedFiles(
  git: GitRun,
  dir: string,
  base: string,
  refuse: (why: string) => OttoError,
): Promise<{ commits: string[]; files: PushedFile[] }> {
  const list = await git(["rev-list", "--reverse", `${base}..HEAD`], { cwd: dir });
  if (list.exitCode !== 0) throw refuse(`git could not list the commits to push (${list.stderr.trim() || `exit ${list.exitCode}`})`);
  const commits = list.stdout.split("\n").filter(Boolean);
  if (commits.length === 0) return { commits, files: [] };
  if (commits.length > MAX_PUSH_COMMITS) throw refuse(`there are ${commits.length} commits to push, more than ${MAX_PUSH_COMMITS}`);
  const args = ["diff-tree", "--stdin", "-r", "-z", "--root", "-m", "--raw", "--no-renames", "--no-abbrev", "--no-commit-id"];
  try {
    const files = await git(args, { cwd: dir, input: `${commits.join("\n")}\n` });
    if (files.exitCode !== 0) throw refuse(`git could not list their files (${files.stderr.trim() || `exit ${files.exitCode}`})`);
    return { commits, files: parseRawDiff(files.stdout) };
  } catch (error) {
    if (isOttoError(error) && error.code === "git_output")
      throw refuse(`the list of files in the ${commits.length} commits is longer than ${MAX_LISTING_BYTES / 1024 / 1024} MiB`);
    throw error;
  }
}

/** The paths among `files` whose blob holds one of `needles`; refuses when a blob is too big to read. */
async function secretPaths(
  git: GitRun,
  dir: string,
  files: readonly PushedFile[],
  needles: readonly string[],
  refuse: (why: string) => OttoError,
) {
  const found = new Set<string>();
  if (needles.length === 0) return found;
  // A submodule's commit (160000) has no content here.
  const blobs = new Map<string, string[]>();
  for (const f of files.filter((x) => x.mode !== "160000")) blobs.set(f.blob, [...(blobs.get(f.blob) ?? []), f.path]);
  if (blobs.size === 0) return found;
  const sizes = await git(["cat-file", "--batch-check=%(objectname) %(objectsize)"], {
    cwd: dir,
    input: `${[...blobs.keys()].join("\n")}\n`,
  });
  if (sizes.exitCode !== 0) throw refuse(`git could not read the sizes of the files to push (${sizes.stderr.trim()})`);
  const size = new Map(sizes.stdout.split("\n").map((l) => l.split(" ") as [string, string]));
  for (const [blob, paths] of blobs) {
    const bytes = Number(size.get(blob));
    if (!Number.isFinite(bytes)) throw refuse(`git could not read ${paths[0]} (blob ${blob})`);
    if (bytes > MAX_PUSH_BLOB_BYTES)
      throw refuse(`${paths[0]} is ${bytes} bytes, more than the ${MAX_PUSH_BLOB_BYTES / 1024 / 1024} MiB it searches for secrets`);
    const content = await git(["cat-file", "blob", blob], { cwd: dir });
    if (content.exitCode !== 0) throw refuse(`git could not read ${paths[0]} (blob ${blob})`);
    if (needles.some((n) => content.stdout.includes(n))) for (const p of paths) found.add(p);
  }
  return found;
}

/**
 * Refuses (OttoError) when a commit of `base..HEAD` adds or changes a file ignored at snapshot time,
 * a file holding an ignored file's content, or one holding a known secret; or when the commits
 * cannot be read whole.
 */
export async function refuseLeakingCommits(
  git: GitRun,
  dir: string,
  input: { base: string; baseline: TreeSnapshot; secrets: readonly string[]; remote: string; branch: string },
): Promise<void> {
  const refuse = (why: string): OttoError => tooLarge(why, dir, input.remote, input.branch);
  const { commits, files } = await pushedFiles(git, dir, input.base, refuse);
  if (commits.length === 0) return;
  const ignored = [...new Set(files.filter((f) => ignoredAt(input.baseline, f.path)).map((f) => f.path))];
  const copies = ignoredCopies(
    files.filter((f) => !ignored.includes(f.path)),
    input.baseline.ignoredBlobs,
  );
  const needles = [...new Set(input.secrets)].filter((s) => s.length >= MIN_SCANNED_SECRET);
  const secret = await secretPaths(
    git,
    dir,
    files.filter((f) => !ignored.includes(f.path)),
    needles,
    refuse,
  );
  // A tree carries its names: a file named after a token sends the token.
  for (const f of files) if (needles.some((n) => f.path.includes(n))) secret.add(f.path);
  const meta = await scanPushedMetadata(git, dir, { commits, needles, ignoredBlobs: input.baseline.ignoredBlobs }, refuse);
  for (const m of meta) if (m.secret) secret.add(m.what);
  for (const m of meta) if (m.copies !== undefined) copies.push({ path: m.what, copies: m.copies });
  if (ignored.length === 0 && copies.length === 0 && secret.size === 0) return;
  const named = (list: string[]) => list.slice(0, 10).join(", ") + (list.length > 10 ? ` and ${list.length - 10} more` : "");
  const one = (n: number, a: string, b: string): string => (n === 1 ? a : b);
  const why = [
    ...(ignored.length > 0
      ? [
          `${named(ignored)}: git ignored ${one(ignored.length, "it", "them")} when otto started, and a session committed ${one(ignored.length, "it", "them")}`,
        ]
      : []),
    ...(copies.length > 0
      ? [
          `${named(copies.map((c) => `${c.path} (a copy of ${c.copies})`))}: ${one(copies.length, "holds", "hold")} the content of a file git ignored when otto started`,
        ]
      : []),
    ...(secret.size > 0 ? [`${named([...secret])}: ${one(secret.size, "holds", "hold")} a secret otto knows`] : []),
  ].join("; ");
  const code = secret.size > 0 ? "secret_in_commit" : ignored.length > 0 ? "ignored_file_in_commit" : "ignored_content_in_commit";
  throw new OttoError(
    code,
    redact(`Nothing pushed: the commits to push to ${input.branch} hold files that must not leave this machine (${why}).`, input.secrets),
    `Drop the commits and keep every file on disk (git -C ${dir} reset ${input.remote}/${input.branch}), look at what the session changed, then run the command again.`,
  );
}
