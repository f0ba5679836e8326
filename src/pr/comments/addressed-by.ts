import type { Env } from "../../core/index.ts";
import { runGit } from "../../workspace/index.ts";

/*
 * An AGREE that changed nothing claims the comment was already addressed. The claim counts only
 * when the model names the commit and that commit is on the PR's branch as the remote has it: a
 * model's word alone never resolves a reviewer's thread.
 */

/** The reply's first line when an AGREE changed nothing and no commit on the branch shows it was done. */
export const NOT_ADDRESSED = "otto agrees but made no change and found no commit that addresses this; leaving it open for a person.";

/**
 * otto's own reply left the thread open on purpose: a pass that recovers it must not resolve it.
 * Anywhere in the body, since a conversation reply starts with the quoted comment.
 */
export const leftOpen = (body: string): boolean => body.includes(NOT_ADDRESSED);

/** A commit id as a model may write it: hex only, so it can never be read as a git option. */
const SHA = /^[0-9a-f]{7,40}$/i;

/** The commit the model named, when it is a commit id at all; undefined otherwise. */
export function parseAddressedBy(value: string | undefined): string | undefined {
  const sha = value?.trim();
  return sha && SHA.test(sha) ? sha.toLowerCase() : undefined;
}

/** The full id of `sha` when it is on refs/remotes/<remote>/<branch> in `dir`; undefined when not. */
export async function findOnBranch(input: {
  dir: string;
  remote: string;
  branch: string;
  sha: string | undefined;
  env: Env;
}): Promise<string | undefined> {
  const sha = parseAddressedBy(input.sha);
  if (!sha) return undefined;
  const full = await runGit(["rev-parse", "--verify", "--quiet", `${sha}^{commit}`], { cwd: input.dir, env: input.env });
  if (full.exitCode !== 0) return undefined;
  const id = full.stdout.trim();
  const onBranch = await runGit(["merge-base", "--is-ancestor", id, `refs/remotes/${input.remote}/${input.branch}`], {
    cwd: input.dir,
    env: input.env,
  });
  return onBranch.exitCode === 0 ? id : undefined;
}
