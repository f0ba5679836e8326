import { OttoError } from "../core/index.ts";
import { describeCommand, runGit, type GitOptions, type GitResult } from "./git.ts";

/*
 * Turns the git failures people actually meet into errors that say what to do. Patterns match
 * git's English messages (the runner sets LC_ALL=C); anything else becomes `git_failed` with
 * git's own words and the command to rerun.
 */

interface Rule {
  code: string;
  test: RegExp;
  message: (ctx: FailureContext) => string;
  fix: (ctx: FailureContext) => string;
}

interface FailureContext {
  command: string;
  cwd: string;
  stderr: string;
  match: RegExpExecArray;
}

const RULES: Rule[] = [
  {
    code: "git_identity",
    test: /Please tell me who you are|Author identity unknown|unable to auto-detect email address|empty ident name/,
    message: ({ command }) => `\`${command}\` failed: git does not know who you are (no user.email / user.name).`,
    fix: () => 'git config --global user.email "you@example.com" && git config --global user.name "Your Name"',
  },
  {
    code: "git_not_a_repo",
    test: /not a git repository/i,
    message: ({ cwd }) => `${cwd} is not inside a git repository.`,
    fix: ({ cwd }) => `Check the path (is the clone still at ${cwd}?), or run the command from inside the repository.`,
  },
  {
    code: "git_lock",
    test: /Unable to create '([^']+\.lock)': File exists/,
    message: ({ match }) => `Another git process holds ${match[1]}.`,
    fix: ({ match }) =>
      `Wait for the other git command to finish; if none is running (a crashed one left the lock), delete it: rm '${match[1]}'`,
  },
  {
    code: "git_detached_head",
    test: /You are not currently on a branch|HEAD detached|ref HEAD is not a symbolic ref/,
    message: ({ cwd }) => `${cwd} is in detached HEAD state (no branch checked out).`,
    fix: ({ cwd }) => `Check out a branch first: git -C ${cwd} switch <branch>`,
  },
  {
    code: "git_non_fast_forward",
    test: /non-fast-forward|\[rejected\]|Updates were rejected|fetch first/,
    message: ({ command }) => `\`${command}\` was rejected: the remote has commits this branch does not have.`,
    fix: ({ cwd }) => `Bring them in first (git -C ${cwd} pull --rebase), resolve any conflicts, then run the command again.`,
  },
  {
    code: "git_auth",
    test: /Authentication failed|could not read (Username|Password)|terminal prompts disabled|Permission denied \(publickey/,
    message: ({ command }) => `\`${command}\` could not authenticate with the remote.`,
    fix: () =>
      "Set up credentials git can use without a prompt (a credential helper, or an SSH key loaded in ssh-agent); otto runs git with terminal prompts disabled.",
  },
];

const firstLines = (text: string, n = 6): string => text.trim().split("\n").slice(0, n).join("\n");

/** The OttoError for a failed git command: a recognised failure with its fix, or git's own message. */
export function gitFailure(args: readonly string[], cwd: string, result: GitResult): OttoError {
  const command = describeCommand(args, cwd);
  const stderr = result.stderr || result.stdout;
  for (const rule of RULES) {
    const match = rule.test.exec(stderr);
    if (match) {
      const ctx = { command, cwd, stderr, match };
      return new OttoError(rule.code, `${rule.message(ctx)}\ngit said: ${firstLines(stderr)}`, rule.fix(ctx));
    }
  }
  return new OttoError(
    "git_failed",
    `\`${command}\` failed (exit ${result.exitCode}): ${firstLines(stderr) || "no output"}`,
    `Run it yourself to see the whole output: ${command}`,
  );
}

/** The error for work that needs a branch when HEAD is detached. */
export function detachedHeadError(cwd: string, action: string): OttoError {
  return new OttoError(
    "git_detached_head",
    `${cwd} is in detached HEAD state, so otto cannot ${action}.`,
    `Check out a branch first: git -C ${cwd} switch <branch>`,
  );
}

/** Runs git and returns its stdout; a non-zero exit throws the classified OttoError. */
export async function gitOutput(args: readonly string[], options: GitOptions): Promise<string> {
  const result = await runGit(args, options);
  if (result.exitCode !== 0) throw gitFailure(args, options.cwd, result);
  return result.stdout;
}
