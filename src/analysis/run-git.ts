import { execa } from "execa";
import type { GitRunner } from "./types.ts";

/**
 * The analysis's only subprocess. Returns data, never throws: a missing `git` binary or a
 * timeout comes back as a non-zero exit code so callers can fall back to a directory walk.
 */
export const runGit: GitRunner = async (args, { cwd, timeoutMs }) => {
  const result = await execa("git", args, {
    cwd,
    timeout: timeoutMs,
    reject: false,
    stripFinalNewline: false,
    // `ls-files -z` on a repository with ~1M paths is tens of MB.
    maxBuffer: 512 * 1024 * 1024,
    env: { GIT_OPTIONAL_LOCKS: "0" },
  });
  if (result.timedOut) return { exitCode: -1, stdout: "", stderr: `git timed out after ${timeoutMs} ms` };
  return {
    exitCode: result.exitCode ?? -1,
    stdout: typeof result.stdout === "string" ? result.stdout : "",
    stderr: typeof result.stderr === "string" && result.stderr !== "" ? result.stderr : (result.shortMessage ?? ""),
  };
};
