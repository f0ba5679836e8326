import fs from "node:fs";
import path from "node:path";
import { assertNoCommittedSecrets } from "../config/index.ts";
import { OttoError, redact } from "../core/index.ts";
import type { Env } from "../core/index.ts";
import { describeControlChanges, gitControlChanges, type GitControlSnapshot } from "./git-guard.ts";
import { userGitSettings, type SandboxMode } from "../sandbox/index.ts";
import { TEXT_DIFF } from "./change-set.ts";
import { runGit, type GitResult } from "./git.ts";
import { refuseIgnoredCopies } from "./ignored-content.ts";
import { quarantineOpencodeCode, type Quarantined } from "./quarantine.ts";
import { findKnownSecrets } from "./secret-scan.ts";
import { changesSince, type GitRun, type TreeChanges, type TreeSnapshot } from "./snapshot.ts";

export type { GitRun } from "./snapshot.ts";

export interface CommitOptions {
  message: string;
  /** The tree before the sessions ran (snapshotTree): only what changed since is committed. */
  baseline: TreeSnapshot;
  /**
   * Record a commit even when the sessions changed nothing (an execute phase whose gates found
   * nothing to change is still recorded as committed). Never takes anything the user staged.
   */
  allowEmpty?: boolean;
  /**
   * Folders (relative to the top of the tree, ending in "/") that are otto's own state and always
   * committed when changed, even when they were dirty before the run: the spec an execute or build
   * works through (written by otto's spec pipeline, which never commits).
   */
  include?: readonly string[];
  /** What to do when the commit fails: the `fix` of the commit_failed error. */
  fix?: string;
  /**
   * Git's configuration and hooks before the sessions ran (snapshotGitControl): a commit runs hooks
   * with otto's environment, so nothing is committed when a session changed them.
   */
  guard?: { snapshot: GitControlSnapshot; env: Env };
  /**
   * `git.hooks: "run"`: the commit runs the repository's hooks, inside the sandbox. Default: no
   * hook runs (`--no-verify`, and runGit gives git no hooks path), since a session could have
   * changed them.
   */
  hooks?: { sandbox: SandboxMode; env: Env };
  /**
   * The known secrets (LoadedConfig.secrets: config tokens, the environment's): a file to be
   * committed that holds one refuses the commit (secret_in_commit), naming the file, never the value.
   */
  secrets?: readonly string[];
}

export interface CommitResult {
  /** Short sha of the new commit; undefined when there was nothing to commit (and allowEmpty was off). */
  sha: string | undefined;
  /** The paths the commit took. */
  committed: string[];
  /** Paths that had the user's changes before the run and were changed by a session too: left uncommitted. */
  kept: string[];
  /** Paths git ignored when the run started and reports now (a session changed what git ignores): the user's, left out. */
  ignored: string[];
  /** Nested repositories (a folder with its own `.git`) the sessions made or changed: never committed (nestedLine). */
  nested: string[];
  /** OpenCode configuration the sessions wrote, moved out of the tree and never committed (quarantineLine). */
  quarantined?: Quarantined;
}

const DEFAULT_FIX =
  "Fix the cause (git identity: git config user.name/user.email; a failing pre-commit hook), then run /otto-spec execute again: the work stays in the working tree and nothing finished is run again.";

/** NUL-separated, for `--pathspec-from-file=- --pathspec-file-nul`: any file name, no argument-length limit. */
const pathspec = (paths: readonly string[]): string => paths.map((p) => `${p}\0`).join("");

/**
 * Stages and commits only what changed since `baseline` (never `add -A` of the whole tree), with
 * `commit --only` so whatever the user had staged stays staged and out of the commit. Pathspecs are
 * literal (`--literal-pathspecs`): a file named `*.ts` is that file, not a glob.
 */
export async function commitChanges(git: GitRun, cwd: string, options: CommitOptions): Promise<CommitResult> {
  const all = takeIncluded(await changesSince(git, cwd, options.baseline), options.include ?? []);
  // OpenCode code a session wrote (.opencode/, opencode.json, a link by such a name) leaves the tree before anything is committed.
  const env = options.guard?.env ?? options.hooks?.env ?? process.env;
  const quarantined = await quarantineOpencodeCode(git, cwd, all.paths, env, options.baseline.ignored ?? []);
  if (quarantined) all.paths = all.paths.filter((p) => !quarantined.paths.includes(p));
  const { changes, nested } = await leaveOutNested(git, cwd, all);
  const fix = options.fix ?? DEFAULT_FIX;
  const left = { kept: changes.kept, ignored: changes.ignored, nested, ...(quarantined ? { quarantined } : {}) };
  if (changes.paths.length === 0 && !options.allowEmpty) return { sha: undefined, committed: [], ...left };
  // A credential in the repo's otto.jsonc must not be committed.
  await assertNoCommittedSecrets(cwd, git);
  await refuseKnownSecrets(git, cwd, changes.paths, options.secrets ?? []);
  // `cp .env config.example`: an ignored file's content under a name no ignore rule covers.
  await refuseIgnoredCopies(git, cwd, changes.paths, options.baseline.ignoredBlobs);
  if (options.guard) {
    const tampered = await gitControlChanges(options.guard.snapshot, { env: options.guard.env });
    if (tampered.length > 0) {
      throw new OttoError(
        "git_control_changed",
        `Nothing committed: ${describeControlChanges(cwd, tampered)}`,
        "Look at what changed (git config --list --show-origin; ls .git/hooks), undo what you did not make, then run the command again: the work stays in the working tree.",
      );
    }
  }
  const spec = ["--pathspec-from-file=-", "--pathspec-file-nul"];
  if (changes.paths.length > 0) {
    // --all with a pathspec: additions, edits and deletions of exactly these paths.
    const add = await git(["--literal-pathspecs", "add", "--all", ...spec], { cwd, input: pathspec(changes.paths) });
    if (add.exitCode !== 0) throw commitError("git add", add, fix);
  }
  const args = [
    "--literal-pathspecs",
    "commit",
    "-q",
    "--only",
    ...(options.hooks ? [] : ["--no-verify"]),
    ...(options.allowEmpty ? ["--allow-empty"] : []),
    "-m",
    redact(options.message),
  ];
  const input = changes.paths.length > 0 ? { input: pathspec(changes.paths) } : {};
  const hooked = options.hooks;
  const commitGit: GitRun = hooked ? (a, o) => runGit(a, { ...o, env: hooked.env, hooks: { run: true, sandbox: hooked.sandbox } }) : git;
  const commit = await commitGit(changes.paths.length > 0 ? [...args, ...spec] : args, { cwd, ...input });
  if (commit.exitCode !== 0) throw commitError("git commit", commit, fix);
  const head = await git(["rev-parse", "--short", "HEAD"], { cwd });
  return { sha: head.stdout.trim(), committed: changes.paths, ...left };
}

/**
 * A changed path that is a folder is a nested repository (git lists an untracked folder whole only
 * when it has its own `.git`): committing it would add a gitlink to a repository a session wrote,
 * whose config every later git command there would honour. Left out and named, like ignored paths.
 */
async function leaveOutNested(git: GitRun, cwd: string, changes: TreeChanges): Promise<{ changes: TreeChanges; nested: string[] }> {
  if (changes.paths.length === 0) return { changes, nested: [] };
  const top = await git(["rev-parse", "--show-toplevel"], { cwd });
  const root = top.exitCode === 0 ? top.stdout.trim() : cwd;
  const isDir = (p: string): boolean => fs.statSync(path.join(root, p), { throwIfNoEntry: false })?.isDirectory() === true;
  const nested = changes.paths.filter(isDir);
  if (nested.length === 0) return { changes, nested };
  return { changes: { ...changes, paths: changes.paths.filter((p) => !nested.includes(p)) }, nested };
}

/** The summary's line for nested repositories a commit left out. */
export function nestedLine(nested: readonly string[]): string {
  const list = nested.slice(0, 20).join(", ") + (nested.length > 20 ? ` and ${nested.length - 20} more` : "");
  return `Left out: ${list}: ${nested.length === 1 ? "a nested git repository" : "nested git repositories"} a session made; otto never commits one (its git configuration is the session's).`;
}

/**
 * Otto's commits are never signed (git.ts): its git runs where the user's signing agent is out of
 * reach, and a signing prompt nobody sees would stop the run. When the user's git configuration
 * signs commits, the summary says so once, with what a branch rule requiring signatures will do.
 */
export function unsignedLine(env: Env, gitDir?: string): string | undefined {
  if (!userGitSettings(env, gitDir).signs) return undefined;
  return "Otto's commits are unsigned (your git config signs commits with commit.gpgSign; otto commits where your signing agent is out of reach). A branch rule that requires signed commits refuses the push: sign them yourself (`git rebase --exec 'git commit --amend --no-edit -S' <base>`) and push.";
}

/** Refuses the commit when a file it would take holds a known secret; names the files, never the values. */
async function refuseKnownSecrets(git: GitRun, cwd: string, paths: readonly string[], secrets: readonly string[]): Promise<void> {
  if (secrets.length === 0 || paths.length === 0) return;
  const top = await git(["rev-parse", "--show-toplevel"], { cwd });
  const found = await findKnownSecrets(top.exitCode === 0 ? top.stdout.trim() : cwd, paths, secrets);
  if (found.length === 0) return;
  const list = found.slice(0, 10).join(", ") + (found.length > 10 ? ` and ${found.length - 10} more` : "");
  throw new OttoError(
    "secret_in_commit",
    redact(
      `Nothing committed: ${list} ${found.length === 1 ? "holds" : "hold"} a secret otto knows (a token or password of its config or environment).`,
      secrets,
    ),
    "Take the secret out of the file (read it from an environment variable instead) or git-ignore the file, then run the command again: the work stays in the working tree. If the secret was ever pushed, rotate it.",
  );
}

/** The summary's line for paths a commit left out because git ignored them when the run started. */
export function ignoredLine(ignored: readonly string[]): string {
  const list = ignored.slice(0, 20).join(", ") + (ignored.length > 20 ? ` and ${ignored.length - 20} more` : "");
  const one = ignored.length === 1;
  return `Left out: ${list}: git ignored ${one ? "it" : "them"} when otto started and a session changed what git ignores; otto never commits an ignored file it did not make (commit ${one ? "it" : "them"} by hand if you mean to).`;
}

/**
 * An execute or build commit: only the run's changes, recorded even when empty unless
 * `allowEmpty` is false (then `sha` is "" when there was nothing to commit). Returns the short
 * sha and the paths left uncommitted because they held the user's edits too.
 */
export async function commitAll(
  git: GitRun,
  cwd: string,
  message: string,
  options: {
    baseline: TreeSnapshot;
    include?: readonly string[];
    guard?: CommitOptions["guard"];
    allowEmpty?: boolean;
    hooks?: CommitOptions["hooks"];
    secrets?: readonly string[];
  },
): Promise<{ sha: string; kept: string[]; ignored: string[]; nested: string[]; quarantined?: Quarantined }> {
  const allowEmpty = options.allowEmpty ?? true;
  const result = await commitChanges(git, cwd, {
    message,
    baseline: options.baseline,
    include: options.include ?? [],
    allowEmpty,
    ...(options.guard ? { guard: options.guard } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
  });
  return {
    sha: result.sha ?? "",
    kept: result.kept,
    ignored: result.ignored,
    nested: result.nested,
    ...(result.quarantined ? { quarantined: result.quarantined } : {}),
  };
}

/** Pure: every uncommitted path inside an `include` folder is committed, whoever changed it. */
export function takeIncluded(changes: TreeChanges, include: readonly string[]): TreeChanges {
  if (include.length === 0) return changes;
  const inside = (p: string): boolean => include.some((dir) => p.startsWith(dir));
  return {
    paths: [...changes.paths, ...changes.kept.filter(inside), ...changes.untouched.filter(inside)].sort(),
    kept: changes.kept.filter((p) => !inside(p)),
    untouched: changes.untouched.filter((p) => !inside(p)),
    ignored: changes.ignored,
  };
}

function commitError(command: string, result: GitResult, fix: string): OttoError {
  return new OttoError(
    "commit_failed",
    `${command} failed (exit ${result.exitCode}): ${(result.stderr || result.stdout).trim().slice(0, 2000)}`,
    fix,
  );
}

/** `.git` of the working tree (a worktree has its own), for the run lock. */
export async function gitDir(git: GitRun, cwd: string): Promise<string | undefined> {
  const result = await git(["rev-parse", "--absolute-git-dir"], { cwd });
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

/**
 * What the next commit would hold (the changes since `baseline`), as a diff cut to `max`
 * characters. Nothing is staged: new files are shown with `git diff --no-index` against nothing.
 * Read as text (TEXT_DIFF): a `-diff` attribute cannot turn a change into "Binary files differ".
 */
export async function pendingDiff(
  git: GitRun,
  cwd: string,
  options: { baseline: TreeSnapshot; include?: readonly string[] },
  max = 30_000,
): Promise<string> {
  const { changes } = await leaveOutNested(git, cwd, takeIncluded(await changesSince(git, cwd, options.baseline), options.include ?? []));
  const paths = changes.paths;
  if (paths.length === 0) return "";
  // The whole index (ls-files takes no pathspec file): a path in it is diffed against HEAD, the rest are new.
  const tracked = await git(["ls-files", "-z"], { cwd });
  if (tracked.exitCode !== 0) throw commitError("git ls-files", tracked, DEFAULT_FIX);
  const known = new Set(tracked.stdout.split("\0").filter(Boolean));
  const parts: string[] = [];
  const old = paths.filter((p) => known.has(p));
  if (old.length > 0) {
    const stat = await git(["--literal-pathspecs", "diff", "HEAD", "--stat", "--", ...old], { cwd });
    const diff = await git(["--literal-pathspecs", "diff", "HEAD", ...TEXT_DIFF, "--", ...old], { cwd });
    parts.push(stat.stdout.trim(), diff.stdout);
  }
  for (const p of paths.filter((x) => !known.has(x))) {
    // Exit 1 means "differs", which a new file always does.
    const diff = await git(["diff", "--no-index", ...TEXT_DIFF, "--", "/dev/null", p], { cwd });
    parts.push(diff.stdout);
  }
  const text = parts.join("\n\n").trim();
  return text.length > max ? `${text.slice(0, max)}\n… (diff cut at ${max} characters)` : text;
}
