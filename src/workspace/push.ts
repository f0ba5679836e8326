import type { SandboxMode } from "../sandbox/index.ts";
import fs from "node:fs";
import path from "node:path";
import { isOttoError, type Env } from "../core/index.ts";
import { commitChanges, ignoredLine, nestedLine, unsignedLine } from "./commit.ts";
import { quarantineLine } from "./quarantine.ts";
import { refuseGitlinks } from "./gitlinks.ts";
import { describeControlChanges, gitControlChanges, type GitControlSnapshot } from "./git-guard.ts";
import { gitFailure } from "./git-errors.ts";
import { refuseLeakingCommits } from "./push-scan.ts";
import { runGit, type GitEnv, type GitResult } from "./git.ts";
import { currentBranch, headSha } from "./identity.ts";
import type { GitRun, TreeSnapshot } from "./snapshot.ts";

/*
 * One file for one job: landing a fix on a PR branch, which is one sequence (commit, check, push,
 * and on a rejection fetch, rebase and push once more) whose steps share the same guards.
 */

/*
 * How otto lands a fix on a PR branch (fix flow, comment responses, review loop): commit what the
 * sessions changed since `baseline` (never the user's own uncommitted edits), push HEAD to the
 * PR's own branch and nowhere else, never with force. A push rejected because the branch moved is
 * answered with fetch + rebase and one more push; a rebase that stops or times out is aborted.
 */

export interface PushInput {
  /** The PR's working tree. */
  dir: string;
  /** The PR's source branch: the only branch otto pushes to. */
  branch: string;
  /** The remote that holds it (PrWorkdir.remote). */
  remote: string;
  /** Message of the commit otto makes for changes the model left uncommitted. */
  message: string;
  /** The tree before the sessions ran (snapshotTree; CLEAN_TREE for otto's own temporary worktree). */
  baseline: TreeSnapshot;
  /** `dir` is otto's temporary worktree with a detached HEAD at the PR's branch: push HEAD from there. */
  detached?: boolean;
  env?: Env;
  /**
   * Called once when the rebase stops on conflicts (conflict markers in `files`): a session that
   * resolves them in `dir`. True when it did; otto then checks and continues the rebase.
   */
  resolveConflicts?: (conflict: { dir: string; files: string[] }) => Promise<boolean>;
  /**
   * The checkout's git configuration and hooks as they were before otto handed the tree to its
   * sessions (snapshotGitControl). If they changed, otto commits and pushes nothing: a session
   * could have planted a hook or a push URL that otto's own git would run with the user's token.
   */
  guard?: GitControlSnapshot;
  /** `git.hooks: "run"`: the commit runs the repository's hooks inside the sandbox (never the push). */
  hooks?: { sandbox: SandboxMode };
  /** The known secrets: a file holding one is not committed (commitChanges' secret_in_commit). */
  secrets?: readonly string[];
}

export type PushOutcome = "pushed" | "nothing" | "conflict" | "rejected" | "wrong_branch" | "tampered";

export interface PushResult {
  outcome: PushOutcome;
  /** HEAD after the call (the pushed commit when outcome is pushed). */
  sha: string;
  /** Otto committed changes the model had left in the working tree. */
  committed: boolean;
  /** Paths left uncommitted: they had the user's changes before the run and a session changed them too. */
  kept: string[];
  /** Paths git ignored when the flow took its snapshot and reports now: the user's, left out (named in `detail`). */
  ignored: string[];
  rebased: boolean;
  /** What happened, for the PR document and the summary. */
  detail: string;
}

const REJECTED = /\[rejected\]|non-fast-forward|fetch first|Updates were rejected/;

export interface PushBranchInput {
  dir: string;
  remote: string;
  /** The branch on the remote: otto pushes to a branch of its own name only. */
  branch: string;
  /** What goes up (default HEAD; `refs/heads/<branch>` for the user's own branch). */
  from?: string;
  /** Record the remote branch as the local branch's upstream (a branch new on the remote). */
  setUpstream?: boolean;
  /** Ask the remote whether it would take the push, without pushing. */
  dryRun?: boolean;
}

/**
 * Every `git push` otto makes, in one place: to the named branch, never forced, no pre-push hook
 * (a hook is a file a session could have written; runGit also points git's hooks at /dev/null).
 * A rejection is an answer, not an error: `rejected` says the branch moved, and the caller decides
 * (commitAndPush rebases once; `/otto-pr create` stops for the user).
 */
export async function pushBranch(input: PushBranchInput, git: GitEnv = {}): Promise<GitResult & { rejected: boolean }> {
  const args = [
    "push",
    "--no-verify",
    "--porcelain",
    // One branch and nothing else: never a tag, whatever the user's push.followTags (push-scan.ts reads them anyway).
    "--no-follow-tags",
    ...(input.dryRun ? ["--dry-run"] : []),
    ...(input.setUpstream ? ["--set-upstream"] : []),
    input.remote,
    `${input.from ?? "HEAD"}:refs/heads/${input.branch}`,
  ];
  const result = await runGit(args, { ...git, cwd: input.dir });
  return { ...result, rejected: result.exitCode !== 0 && REJECTED.test(result.stderr + result.stdout) };
}

export async function commitAndPush(input: PushInput): Promise<PushResult> {
  const { dir, branch } = input;
  const git = (args: string[], env: Env = {}, input_?: string): Promise<GitResult> =>
    runGit(args, { cwd: dir, env: { ...(input.env ?? process.env), ...env }, ...(input_ !== undefined ? { input: input_ } : {}) });
  const run: GitRun = (args, options) => git(args, {}, options.input);
  const must = async (args: string[], env: Env = {}): Promise<string> => {
    const result = await git(args, env);
    if (result.exitCode !== 0) throw gitFailure(args, dir, result);
    return result.stdout.trim();
  };
  const head = async (): Promise<string> => (await headSha(dir, { env: input.env ?? process.env })) ?? "";
  const tampered = await tamperedDetail(input);
  if (tampered)
    return { committed: false, kept: [], ignored: [], rebased: false, outcome: "tampered", sha: await head(), detail: tampered };

  const current = await currentBranch(dir, { env: input.env ?? process.env });
  if (input.detached ? current !== undefined : current !== branch) {
    const expected = input.detached ? "a detached HEAD (otto's temporary worktree)" : `the PR's branch '${branch}'`;
    return {
      committed: false,
      kept: [],
      ignored: [],
      rebased: false,
      outcome: "wrong_branch",
      sha: await head(),
      detail: `${dir} has ${current ?? "a detached HEAD"} checked out, not ${expected}: nothing pushed.`,
    };
  }

  const commit = await commitChanges(run, dir, {
    message: input.message,
    baseline: input.baseline,
    fix: `Fix the cause (a failing pre-commit hook, git's identity), then run the command again; the changes are still in ${dir}.`,
    ...(input.hooks ? { hooks: { sandbox: input.hooks.sandbox, env: input.env ?? process.env } } : {}),
    ...(input.secrets ? { secrets: input.secrets } : {}),
  });
  const committed = commit.sha !== undefined;
  const base = { committed, kept: commit.kept, ignored: commit.ignored, rebased: false };
  // Every outcome's detail names what was left out, so each flow's summary and PR document say it.
  const note = [
    ...(commit.ignored.length > 0 ? [ignoredLine(commit.ignored)] : []),
    ...(commit.nested.length > 0 ? [nestedLine(commit.nested)] : []),
    ...(commit.quarantined ? [quarantineLine(commit.quarantined)] : []),
    ...(committed ? [unsignedLine(input.env ?? process.env)].filter((line) => line !== undefined) : []),
  ]
    .map((line) => ` ${line}`)
    .join("");
  const result = await pushCommitted(input, git, must, head, base);
  return note ? { ...result, detail: `${result.detail}${note}` } : result;
}

async function pushCommitted(
  input: PushInput,
  git: (args: string[], env?: Env, input?: string) => Promise<GitResult>,
  must: (args: string[], env?: Env) => Promise<string>,
  head: () => Promise<string>,
  base: { committed: boolean; kept: string[]; ignored: string[]; rebased: boolean },
): Promise<PushResult> {
  const { dir, branch, remote } = input;

  // Anything to push? The remote-tracking ref is refreshed first: the branch may have moved.
  await must(["fetch", "-q", remote, `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`]);
  const ahead = Number(await must(["rev-list", "--count", `refs/remotes/${remote}/${branch}..HEAD`]));
  if (ahead === 0)
    return { ...base, outcome: "nothing", sha: await head(), detail: `Nothing to push: ${branch} on ${remote} already has every commit.` };

  // No pre-push hook, ever: a push needs the user's credentials, which no hook a session could
  // have written gets (git.hooks "run" runs the commit's hooks, in the sandbox, not this one).
  const push = () => pushBranch({ dir, remote, branch }, { env: input.env ?? process.env });
  // A session's own commits go with otto's: none may carry an ignored file of the user's or a known secret.
  const scan = async (): Promise<void> => {
    const base = `refs/remotes/${remote}/${branch}`;
    await refuseGitlinks((args) => git(args), dir, { base, remote, branch });
    // Raw: the scan reads commit objects as bytes.
    const run: GitRun = (args, options) =>
      runGit(args, {
        cwd: dir,
        env: input.env ?? process.env,
        ...(options.input !== undefined ? { input: options.input } : {}),
        raw: options.raw === true,
      });
    await refuseLeakingCommits(run, dir, {
      base,
      baseline: input.baseline,
      secrets: input.secrets ?? [],
      remote,
      branch,
    });
  };
  await scan();
  const first = await push();
  if (first.exitCode === 0)
    return { ...base, outcome: "pushed", sha: await head(), detail: `Pushed ${ahead} commit(s) to ${remote}/${branch}.` };
  if (!first.rejected) throw gitFailure(["push", remote, `HEAD:refs/heads/${branch}`], dir, first);

  // The branch moved under us: replay our commits on top of it, once.
  await must(["fetch", "-q", remote, `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`]);
  // No --autostash: the PR flows run in a tree that was clean (or otto's temporary worktree); any
  // edit of the user's that is still there makes git refuse the rebase, and nothing is touched.
  const rebase = await abortOnTimeout(git, () => git(["rebase", `refs/remotes/${remote}/${branch}`]));
  if (rebase.exitCode !== 0 && !(await rebaseInProgress(git, dir))) {
    // Git refused to start (uncommitted changes of the user's in the tree): nothing was touched.
    const said = rebase.stderr.trim().split("\n")[0] ?? "";
    return {
      ...base,
      outcome: "conflict",
      sha: await head(),
      detail: `${branch} had moved on ${remote} and git would not rebase onto it in ${dir} (${said}): nothing pushed, the tree left as it was. Commit or stash your own changes there, then run the command again.`,
    };
  }
  if (rebase.exitCode !== 0) {
    const resolved = await abortOnTimeout(git, () => resolveRebase(input, git, must));
    if (!resolved.ok) {
      await git(["rebase", "--abort"]);
      return { ...base, rebased: false, outcome: "conflict", sha: await head(), detail: resolved.detail };
    }
  }
  // The conflict-resolution session had the tree too.
  const tamperedAfter = await tamperedDetail(input);
  if (tamperedAfter) return { ...base, rebased: true, outcome: "tampered", sha: await head(), detail: tamperedAfter };
  await scan();
  const second = await push();
  if (second.exitCode === 0)
    return {
      ...base,
      rebased: true,
      outcome: "pushed",
      sha: await head(),
      detail: `${branch} had moved on ${remote}: rebased onto it and pushed.`,
    };
  if (second.rejected) {
    return {
      ...base,
      rebased: true,
      outcome: "rejected",
      sha: await head(),
      detail: `${remote} rejected the push to ${branch} again after a rebase (the branch keeps moving); nothing was forced.`,
    };
  }
  throw gitFailure(["push", remote, `HEAD:refs/heads/${branch}`], dir, second);
}

/** A rebase stopped by a timeout is aborted, so the tree is not left mid-rebase; the timeout is still the error. */
async function abortOnTimeout<T>(git: (args: string[]) => Promise<GitResult>, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (isOttoError(error) && error.code === "git_timeout") await git(["rebase", "--abort"]).catch(() => undefined);
    throw error;
  }
}

/** Why otto must not commit or push in this tree (its git configuration or hooks changed), or undefined. */
async function tamperedDetail(input: PushInput): Promise<string | undefined> {
  if (!input.guard) return undefined;
  const changes = await gitControlChanges(input.guard, { env: input.env ?? process.env });
  if (changes.length === 0) return undefined;
  return `Nothing committed or pushed: ${describeControlChanges(input.dir, changes)}`;
}

/** True while a rebase is stopped (git's rebase-merge or rebase-apply directory exists). */
async function rebaseInProgress(git: (args: string[]) => Promise<GitResult>, dir: string): Promise<boolean> {
  for (const name of ["rebase-merge", "rebase-apply"]) {
    const at = await git(["rev-parse", "--git-path", name]);
    if (at.exitCode === 0 && fs.existsSync(path.resolve(dir, at.stdout.trim()))) return true;
  }
  return false;
}

async function conflicted(git: (args: string[]) => Promise<GitResult>): Promise<string[]> {
  const result = await git(["diff", "--name-only", "--diff-filter=U"]);
  return result.stdout
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

/** One resolution session for the whole rebase; a second stop on conflicts gives up. */
async function resolveRebase(
  input: PushInput,
  git: (args: string[], env?: Env) => Promise<GitResult>,
  must: (args: string[], env?: Env) => Promise<string>,
): Promise<{ ok: boolean; detail: string }> {
  const files = await conflicted(git);
  const describe = (list: string[]) => list.join(", ") || "(unknown files)";
  if (!input.resolveConflicts)
    return {
      ok: false,
      detail: `Rebasing onto the moved ${input.branch} stopped on conflicts in ${describe(files)}; rebase aborted, nothing pushed.`,
    };
  const resolved = await input.resolveConflicts({ dir: input.dir, files });
  const unresolved = files.filter((file) => hasMarkers(path.join(input.dir, file)));
  if (!resolved || unresolved.length > 0) {
    return {
      ok: false,
      detail: `The conflict-resolution session did not resolve ${describe(unresolved.length > 0 ? unresolved : files)}; rebase aborted, nothing pushed.`,
    };
  }
  // Only the files that were in conflict: anything else in the tree is not the resolution's.
  if (files.length > 0) await must(["--literal-pathspecs", "add", "--", ...files]);
  if ((await conflicted(git)).length > 0)
    return { ok: false, detail: `Conflicts remain in ${describe(await conflicted(git))}; rebase aborted, nothing pushed.` };
  // GIT_EDITOR=true keeps the commit messages as they are; the session may also have continued it.
  const inProgress = (await git(["rev-parse", "-q", "--verify", "REBASE_HEAD"])).exitCode === 0;
  if (!inProgress) return { ok: true, detail: "" };
  const next = await git(["rebase", "--continue"], { GIT_EDITOR: "true" });
  if (next.exitCode !== 0)
    return {
      ok: false,
      detail: `The rebase stopped again after resolving ${describe(files)} (${(await conflicted(git)).join(", ") || next.stderr.trim()}); rebase aborted, nothing pushed.`,
    };
  return { ok: true, detail: "" };
}

function hasMarkers(file: string): boolean {
  try {
    return /^(<{7}|>{7}) /m.test(fs.readFileSync(file, "utf8"));
  } catch {
    // Deleted as part of the resolution.
    return false;
  }
}
