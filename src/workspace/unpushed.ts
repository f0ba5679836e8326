import { OttoError, type Env } from "../core/index.ts";
import { runGit } from "./git.ts";

/*
 * Otto reviews, fixes and pushes the PR's head, not the clone's: a local PR branch with commits
 * the remote branch lacks would have them reviewed as the PR's and pushed with otto's fix. Every
 * flow that works in a PR's tree (fix, comments, review loop) checks this after its fetch.
 */

/** Commits (`<short sha> <subject>`, newest first) of HEAD that `ref` lacks; undefined when `ref` is unknown. */
export async function commitsAhead(dir: string, ref: string, env: Env): Promise<string[] | undefined> {
  const log = await runGit(["log", "--format=%h %s", `${ref}..HEAD`, "--"], { cwd: dir, env });
  if (log.exitCode !== 0) return undefined;
  return log.stdout
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

/**
 * Throws when HEAD has commits the fetched PR branch (`refs/remotes/<remote>/<branch>`) does not:
 * the error names them and the two ways out. Silent when the branch was never fetched (the
 * caller's fetch failed): the push refuses then anyway.
 */
export async function refuseUnpushed(input: { dir: string; remote: string; branch: string; env: Env }): Promise<void> {
  const { dir, remote, branch } = input;
  const ahead = await commitsAhead(dir, `refs/remotes/${remote}/${branch}`, input.env);
  if (!ahead || ahead.length === 0) return;
  const shown = ahead.slice(0, 10).map((c) => `  ${c}`);
  if (ahead.length > shown.length) shown.push(`  … and ${ahead.length - shown.length} more`);
  throw new OttoError(
    "pr_local_ahead",
    `The local '${branch}' in ${dir} has ${ahead.length} commit(s) that are not on ${remote}/${branch}, the PR's head; otto works on the PR as the forge has it and would push them with its fix:\n${shown.join("\n")}`,
    `Push them (git -C ${dir} push ${remote} ${branch}) or drop them (git -C ${dir} reset --keep ${remote}/${branch}), then run again.`,
  );
}
