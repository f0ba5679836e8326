import { spawn } from "node:child_process";
import fs from "node:fs";
import { OttoError, type Env } from "../core/index.ts";
import { guardedEnvironment } from "../sandbox/index.ts";
import { planCommand, shellQuote, type SandboxMode, type TreePaths } from "../sandbox/index.ts";
import { removeOwnIndexLock } from "./index-lock.ts";

/** What a git command produced. A non-zero exit is data, not an exception. */
export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** How otto finds and runs git; tests swap the binary or PATH to fake a hung git. */
export interface GitEnv {
  /** The environment git runs with (default process.env); otto adds its own variables on top. */
  env?: Env;
  /** The git executable, looked up on `env.PATH` (default "git"). */
  binary?: string;
  /** Overrides of GIT_TIMEOUTS, e.g. milliseconds in tests. */
  timeouts?: Partial<Record<keyof typeof GIT_TIMEOUTS, number>>;
}

export interface GitOptions extends GitEnv {
  cwd: string;
  /** Default by operation: GIT_TIMEOUTS.read, or GIT_TIMEOUTS.write for network and work-tree writes. */
  timeoutMs?: number;
  /** Bytes of stdout before git is stopped (default 64 MiB). */
  maxBuffer?: number;
  /** Written to git's stdin (e.g. NUL-separated paths for `--pathspec-from-file=-`). */
  input?: string;
  /**
   * `run`: the repository's hooks run, with git inside otto's sandbox in this mode (otto.jsonc
   * `git.hooks: "run"`). Default: no hook runs, since a session may have changed them.
   */
  hooks?: { run: true; sandbox: SandboxMode };
}

/**
 * Local reads (status, rev-parse, config) answer in milliseconds even on big repositories; 10 s
 * means git is stuck (a lock, a hung filesystem). Network commands (fetch, push) move data and get
 * 30 s. Commands that write the index or the work tree run hooks (pre-commit, post-checkout) or
 * touch every file of a big checkout: `add`, `commit`, `rebase`, `worktree add` get 5 minutes.
 */
export const GIT_TIMEOUTS = { read: 10_000, write: 30_000, work: 300_000 } as const;

const NETWORK = new Set(["fetch", "push", "pull", "clone", "ls-remote"]);
/** Subcommands that may take `index.lock` and run hooks. */
const WORK = new Set([
  "add",
  "rm",
  "mv",
  "commit",
  "checkout",
  "switch",
  "restore",
  "worktree",
  "merge",
  "rebase",
  "cherry-pick",
  "revert",
  "reset",
  "stash",
  "clean",
  "gc",
  "update-index",
  "read-tree",
]);

/** The subcommand: the first word that is not a global option (`-c key=value`, `-C dir`, `--no-pager`). */
function subcommand(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "-c" || arg === "-C") i++;
    else if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

export function defaultTimeout(args: readonly string[], timeouts: GitEnv["timeouts"] = {}): number {
  const sub = subcommand(args) ?? "";
  if (WORK.has(sub)) return timeouts.work ?? GIT_TIMEOUTS.work;
  return NETWORK.has(sub) ? (timeouts.write ?? GIT_TIMEOUTS.write) : (timeouts.read ?? GIT_TIMEOUTS.read);
}

/** Subcommands that can run a hook: every work-tree write, and the ones that talk to a remote or apply mail. */
function runsHooks(args: readonly string[]): boolean {
  const sub = subcommand(args) ?? "";
  return WORK.has(sub) || sub === "push" || sub === "pull" || sub === "am";
}

/** True for the commands after whose timeout runGit looks for the `index.lock` the killed git left. */
export function writesIndex(args: readonly string[]): boolean {
  return WORK.has(subcommand(args) ?? "");
}

// Variables that point git at another repository than `cwd` (set inside git hooks, for one):
// otto always names the directory it means, so these would only send git elsewhere.
const REPO_LOCATION = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX"];

/**
 * No hook runs on otto's own git commands that can run one (commit, push, worktree add, rebase,
 * merge, checkout): the hooks folder and what it calls (husky's tracked `.husky/*`, lint-staged,
 * lefthook) are files a session could have changed. "/dev/null" as the hooks path means no hooks.
 * Reads (`config --get core.hooksPath` among them) keep the repository's own configuration.
 * Entries the environment already passes keep their numbers.
 */
function noHooks(env: Record<string, string>): Record<string, string> {
  const inherited = Number.parseInt(env.GIT_CONFIG_COUNT ?? "", 10);
  const n = Number.isFinite(inherited) && inherited > 0 ? inherited : 0;
  return { GIT_CONFIG_COUNT: String(n + 1), [`GIT_CONFIG_KEY_${n}`]: "core.hooksPath", [`GIT_CONFIG_VALUE_${n}`]: "/dev/null" };
}

export function gitEnvironment(env: Env = process.env, options: { silenceHooks?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !REPO_LOCATION.includes(key)) out[key] = value;
  }
  return {
    ...out,
    ...(options.silenceHooks ? noHooks(out) : {}),
    // Never wait for a password on a terminal nobody sees; fail instead.
    GIT_TERMINAL_PROMPT: "0",
    // Reads (status) must not take index.lock and collide with the user's own git commands.
    GIT_OPTIONAL_LOCKS: "0",
    // English messages, so failures can be recognised (see git-errors.ts).
    LC_ALL: "C",
  };
}

/** `git -C <cwd> <args>` as a person would type it, for messages. */
export function describeCommand(args: readonly string[], cwd: string): string {
  const quote = (word: string) => (/^[\w@%+=:,./^~-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  return ["git", "-C", quote(cwd), ...args.map(quote)].join(" ");
}

/**
 * Every git call otto makes goes through here. Resolves with the exit code and output whatever
 * the exit code; throws OttoError `git_timeout` (after killing git and everything it started),
 * `git_missing` when git cannot be started, `git_output` when the output exceeds maxBuffer.
 */
export function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  const hooks = options.hooks;
  if (!hooks) return spawnGit(args, options, [options.binary ?? "git", ...args], options.env, runsHooks(args));
  // git with the repository's hooks, inside the sandbox: the hooks get the tree (git directories
  // writable, their config and hooks read-only) and the environment of a guarded session.
  const env = options.env ?? process.env;
  return treePaths(options.cwd, env).then((tree) => {
    const line = [options.binary ?? "git", ...args].map(shellQuote).join(" ");
    const { argv } = planCommand({ mode: hooks.sandbox, cwd: options.cwd, tree, env }, line);
    return spawnGit(args, options, argv, guardedEnvironment(env), false);
  });
}

/** The tree around `cwd` and its git directories (a linked worktree has its own and the common one), for the sandbox. */
export async function treePaths(cwd: string, env?: Env): Promise<TreePaths> {
  const result = await runGit(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"], {
    cwd,
    ...(env ? { env } : {}),
  });
  if (result.exitCode !== 0) return { root: cwd, gitDirs: [] };
  const [root, gitDir, commonDir] = result.stdout.split("\n").map((line) => line.trim());
  if (!root) return { root: cwd, gitDirs: [] };
  return { root, gitDirs: [...new Set([gitDir, commonDir].filter((d): d is string => Boolean(d)))] };
}

/** One git process: `argv` is git's (or the sandbox's around it); `silenceHooks` gives it no hooks path. */
function spawnGit(
  args: readonly string[],
  options: GitOptions,
  argv: readonly string[],
  env: Env | undefined,
  silenceHooks: boolean,
): Promise<GitResult> {
  const timeoutMs = options.timeoutMs ?? defaultTimeout(args, options.timeouts);
  const maxBuffer = options.maxBuffer ?? 64 * 1024 * 1024;
  const command = describeCommand(args, options.cwd);
  return new Promise((resolve, reject) => {
    // detached: git gets its own process group, so a timeout can kill ssh or credential helpers
    // it started too; they inherit stderr and would otherwise keep the pipe (and us) waiting.
    const startedAt = Date.now();
    const [file, ...rest] = argv;
    const child = spawn(file ?? "git", rest, {
      cwd: options.cwd,
      env: gitEnvironment(env, { silenceHooks }),
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: process.platform !== "win32",
    });
    if (options.input !== undefined && child.stdin) {
      // git may exit before reading everything (a bad option): EPIPE is its answer, not ours.
      child.stdin.on("error", () => undefined);
      child.stdin.end(options.input);
    }
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const kill = (): void => {
      try {
        if (child.pid !== undefined && process.platform !== "win32") process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      kill();
      const error = (removed: string | undefined): OttoError =>
        new OttoError(
          "git_timeout",
          `\`${command}\` did not finish within ${timeoutMs / 1000} s and was stopped.${removed ? ` Removed the ${removed} it left behind.` : ""}`,
          `Run it yourself to see where it waits (a hook, a credential prompt, a lock, the network): ${command}`,
        );
      if (!writesIndex(args)) {
        finish(() => reject(error(undefined)));
        return;
      }
      // The killed git cannot delete its index.lock; left there, it would stop every later git write.
      settled = true;
      clearTimeout(timer);
      void removeOwnIndexLock(options, startedAt).then((removed) => reject(error(removed)));
    }, timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBuffer) {
        kill();
        finish(() => reject(new OttoError("git_output", `\`${command}\` printed more than ${maxBuffer} bytes and was stopped.`)));
      } else stdout.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) => finish(() => reject(spawnError(error, options))));
    child.on("close", (code, signal) => {
      finish(() =>
        resolve({
          exitCode: code ?? (signal ? 128 : -1),
          stdout: Buffer.concat(stdout).toString("utf8"),
          stderr: Buffer.concat(stderr).toString("utf8"),
        }),
      );
    });
  });
}

function spawnError(error: NodeJS.ErrnoException, options: GitOptions): OttoError {
  // spawn reports a missing working directory as ENOENT too, like a missing binary.
  if (!fs.existsSync(options.cwd)) {
    return new OttoError(
      "git_no_directory",
      `The directory ${options.cwd} does not exist.`,
      "Check the path (was the clone moved or deleted?).",
      { cause: error },
    );
  }
  return new OttoError(
    "git_missing",
    `Could not run git (${options.binary ?? "git"}): ${error.code ?? error.message}.`,
    "Install git and make sure it is on the PATH of the process that runs OpenCode.",
    { cause: error },
  );
}
