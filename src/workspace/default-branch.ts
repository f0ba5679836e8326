import { runGit, type GitEnv } from "./git.ts";

/*
 * The repository's default branch: where otto never commits a run (it makes the spec's branch) and
 * what a PR targets unless told otherwise.
 */

async function out(args: string[], dir: string, git: GitEnv): Promise<string | undefined> {
  const result = await runGit(args, { ...git, cwd: dir });
  return result.exitCode === 0 && result.stdout.trim() ? result.stdout.trim() : undefined;
}

/**
 * The default branch of `remote` as this clone knows it (`refs/remotes/<remote>/HEAD`, set by
 * clone), else as the remote says (`ls-remote --symref`, one round trip), else `main` or `master`
 * when this clone has one of them (locally or on the remote), else git's `init.defaultBranch`.
 * Undefined when nothing names one.
 */
export async function defaultBranch(dir: string, git: GitEnv = {}, remote = "origin"): Promise<string | undefined> {
  const known = await out(["symbolic-ref", "--quiet", "--short", `refs/remotes/${remote}/HEAD`], dir, git);
  if (known?.startsWith(`${remote}/`)) return known.slice(remote.length + 1);
  const hasRemote = (await out(["config", "--get", `remote.${remote}.url`], dir, git)) !== undefined;
  if (hasRemote) {
    const symref = await out(["ls-remote", "--symref", remote, "HEAD"], dir, git).catch(() => undefined);
    const match = /^ref: refs\/heads\/(\S+)\s+HEAD$/m.exec(symref ?? "");
    if (match?.[1]) return match[1];
  }
  for (const name of ["main", "master"]) {
    if (await out(["rev-parse", "--verify", "--quiet", `refs/heads/${name}`], dir, git)) return name;
    if (hasRemote && (await out(["rev-parse", "--verify", "--quiet", `refs/remotes/${remote}/${name}`], dir, git))) return name;
  }
  return out(["config", "--get", "init.defaultBranch"], dir, git);
}
