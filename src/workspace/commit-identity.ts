import { OttoError } from "../core/index.ts";
import type { GitRun } from "./snapshot.ts";

/*
 * Otto commits as the user. Where git knows no identity (a new machine, or `user.useConfigOnly`
 * with none configured for this tree) every commit fails, and a flow that found out only at its
 * first commit would have paid for the work before it. Asked of git in the tree itself, so an
 * `includeIf` identity, GIT_AUTHOR_* and $EMAIL count as they will for the commit.
 */

/** Throws `git_identity` when git in `cwd` cannot name the author or the committer of a commit. */
export async function assertCommitIdentity(git: GitRun, cwd: string, again = "run the command again"): Promise<void> {
  for (const role of ["GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"]) {
    const result = await git(["var", role], { cwd });
    if (result.exitCode === 0) continue;
    const said = result.stderr.split("\n").find((line) => line.startsWith("fatal:")) ?? result.stderr.trim().split("\n").pop() ?? "";
    throw new OttoError(
      "git_identity",
      `Otto commits as you, and git in ${cwd} does not know who you are (${said.replace(/^fatal:\s*/, "") || `git var ${role} failed`}). Nothing was run.`,
      `Set your identity: git config --global user.name "Your Name" && git config --global user.email you@example.com (or without --global, for this repository only); then ${again}.`,
    );
  }
}
