import { assertNoCommittedSecrets } from "../config/index.ts";
import { OttoError, redact } from "../core/index.ts";
import type { GitResult } from "./git.ts";

/** What the commit helpers run git with; tests pass a counting or failing runner. */
export type GitRun = (args: string[], options: { cwd: string; timeoutMs?: number }) => Promise<GitResult>;

/** `git add -A` and `git commit` touch every file of the tree and run hooks: minutes, not seconds. */
const WRITE_TIMEOUT_MS = 300_000;

/**
 * `git add -A && git commit`: everything in the working tree, including changes that were there
 * before the run (the design's dirty-state rule). `--allow-empty` so a phase whose gates found
 * nothing to change is still recorded as committed. Returns the short sha.
 */
export async function commitAll(git: GitRun, cwd: string, message: string): Promise<string> {
  // A credential in the repo's otto.jsonc must not be committed (the message may quote a model: redacted).
  await assertNoCommittedSecrets(cwd, git);
  const add = await git(["add", "-A"], { cwd, timeoutMs: WRITE_TIMEOUT_MS });
  if (add.exitCode !== 0) throw commitError("git add -A", add);
  const commit = await git(["commit", "-q", "--allow-empty", "-m", redact(message)], { cwd, timeoutMs: WRITE_TIMEOUT_MS });
  if (commit.exitCode !== 0) throw commitError("git commit", commit);
  const head = await git(["rev-parse", "--short", "HEAD"], { cwd });
  return head.stdout.trim();
}

function commitError(command: string, result: GitResult): OttoError {
  return new OttoError(
    "commit_failed",
    `${command} failed (exit ${result.exitCode}): ${(result.stderr || result.stdout).trim().slice(0, 2000)}`,
    "Fix the cause (git identity: git config user.name/user.email; a failing pre-commit hook), then run /otto-spec execute again: the work stays in the working tree and nothing finished is run again.",
  );
}

/** `.git` of the working tree (a worktree has its own), for the run lock. */
export async function gitDir(git: GitRun, cwd: string): Promise<string | undefined> {
  const result = await git(["rev-parse", "--absolute-git-dir"], { cwd });
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

/**
 * Everything the next commit would hold, as a diff cut to `max` characters: stages the tree first
 * (`git add -A`, what the commit does anyway) so new files show too.
 */
export async function pendingDiff(git: GitRun, cwd: string, max = 30_000): Promise<string> {
  await git(["add", "-A"], { cwd, timeoutMs: WRITE_TIMEOUT_MS });
  const stat = await git(["diff", "--cached", "--stat"], { cwd });
  const diff = await git(["diff", "--cached"], { cwd });
  const text = `${stat.stdout.trim()}\n\n${diff.stdout}`.trim();
  return text.length > max ? `${text.slice(0, max)}\n… (diff cut at ${max} characters)` : text;
}
