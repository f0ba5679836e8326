import { spawn } from "node:child_process";
import fs from "node:fs";
import { gitConfigVars, OttoError, type Env } from "../core/index.ts";
import { guardedEnvironment } from "../sandbox/index.ts";
import { detectSandbox, planCommand, shellQuote, type SandboxAccess, type SandboxMode, type TreePaths } from "../sandbox/index.ts";
import { AIRLOCKED, airlockGit, type AirlockRun } from "./airlock.ts";
import { gitBinary } from "./git-binary.ts";
import { removeOwnIndexLock } from "./index-lock.ts";
import { accessOf } from "./sandbox-access.ts";
import { settleControls, settledLine, watchControls } from "./control-watch.ts";

/** The look before and after a sandboxed command, for the session guard (which loads this file lazily, past the barrel). */
export { settleControls, settledLine, watchControls, type ControlWatch } from "./control-watch.ts";
import { checkTreeLayout, heldSandbox, isOwnWorktree } from "./tree-layout.ts";

/*
 * One file for one job: every git process otto starts goes through runGit. The hardening, the
 * decision to run boxed, the airlock's entry and the spawn with its timeout are one path kept in one
 * place, so no caller can reach git another way. The airlock, the layout record and the binary's
 * lookup are modules of their own.
 */

/** What a git command produced. A non-zero exit is data, not an exception. */
export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout's bytes, when asked for (`raw`). */
  bytes?: Buffer;
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
  /** Keep stdout's bytes in `bytes` (a bundle). */
  raw?: boolean;
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

/** Where the subcommand is: the first word that is not a global option (`-c key=value`, `-C dir`, `--no-pager`); -1 if none. */
function subcommandAt(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "-c" || arg === "-C") i++;
    else if (!arg.startsWith("-")) return i;
  }
  return -1;
}

function subcommand(args: readonly string[]): string | undefined {
  return args[subcommandAt(args)];
}

export function defaultTimeout(args: readonly string[], timeouts: GitEnv["timeouts"] = {}): number {
  const sub = subcommand(args) ?? "";
  if (WORK.has(sub)) return timeouts.work ?? GIT_TIMEOUTS.work;
  return NETWORK.has(sub) ? (timeouts.write ?? GIT_TIMEOUTS.write) : (timeouts.read ?? GIT_TIMEOUTS.read);
}

/** True for the commands after whose timeout runGit looks for the `index.lock` the killed git left. */
export function writesIndex(args: readonly string[]): boolean {
  return WORK.has(subcommand(args) ?? "");
}

// Variables that point git at another repository than `cwd` (set inside git hooks, for one):
// otto always names the directory it means, so these would only send git elsewhere.
const REPO_LOCATION = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX"];

/*
 * Otto's own git runs outside the sandbox, with the user's credentials, on trees sandboxed code
 * wrote: no setting of such a tree may make it run a program. Every command gets, as command-line
 * configuration (which outranks every file): no fsmonitor program, no hooks (fetch, branch and
 * update-ref run `reference-transaction` too; "/dev/null" means none), no descent into submodules,
 * no pager, no `ext::` remote helper, no replace refs. Diffs get --no-ext-diff and --no-textconv (withDiffFlags).
 * Entries the environment already passes keep their numbers.
 */
const HARDENED: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["submodule.recurse", "false"],
  ["core.pager", "cat"],
  ["protocol.ext.allow", "never"],
  // A `refs/replace/` ref (writable by the code the sandbox held) would show otto's scans another commit than the one pushed.
  ["core.useReplaceRefs", "false"],
  // Never signed: a signing program (gpg.program, possibly the tree's own config) and its prompt stay out of otto's runs (commit.ts, unsignedLine).
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  // The user's rebase.autoStash / merge.autoStash would stash their uncommitted work around otto's
  // rebase or merge and, on a conflict, leave it in the stash; rebase.updateRefs would move their other branches.
  ["rebase.autoStash", "false"],
  ["merge.autoStash", "false"],
  ["rebase.updateRefs", "false"],
];
const NO_HOOKS = ["core.hooksPath", "/dev/null"] as const;

/**
 * The environment of every git command otto runs. `hooks`: the repository's hooks may run (a
 * commit with `git.hooks: "run"`, inside the sandbox); otherwise git gets no hooks path.
 */
export function gitEnvironment(env: Env = process.env, options: { hooks?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !REPO_LOCATION.includes(key)) out[key] = value;
  }
  return {
    ...out,
    ...(withConfig(out, options.hooks === true ? HARDENED : [...HARDENED, NO_HOOKS]) as Record<string, string>),
    GIT_PAGER: "cat",
    // Never wait for a password on a terminal nobody sees; fail instead.
    GIT_TERMINAL_PROMPT: "0",
    // Reads (status) must not take index.lock and collide with the user's own git commands.
    GIT_OPTIONAL_LOCKS: "0",
    // English messages, so failures can be recognised (see git-errors.ts).
    LC_ALL: "C",
  };
}

/** Commands that may print a diff: an external diff driver or a textconv filter (repository configuration) would run a program. */
const DIFFS = new Set(["diff", "show", "log", "whatchanged"]);

/** `args` with --no-ext-diff --no-textconv right after a diffing subcommand. */
export function withDiffFlags(args: readonly string[]): string[] {
  const at = subcommandAt(args) + 1;
  if (at === 0 || !DIFFS.has(args[at - 1] ?? "")) return [...args];
  return [...args.slice(0, at), "--no-ext-diff", "--no-textconv", ...args.slice(at)];
}

/** `git -C <cwd> <args>` as a person would type it, for messages. */
export function describeCommand(args: readonly string[], cwd: string): string {
  const quote = (word: string) => (/^[\w@%+=:,./^~-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  return ["git", "-C", quote(cwd), ...args.map(quote)].join(" ");
}

/**
 * Every git call otto makes goes through here. Resolves with the exit code and output whatever
 * the exit code; throws OttoError `git_timeout` (after killing git and everything it started),
 * `git_missing` when git cannot be started, `git_output` when the output exceeds maxBuffer, and
 * `git_layout_changed` / `git_layout_invalid` (before git starts) when the tree's `.git` no longer
 * leads where otto first found it (tree-layout.ts), and `git_unsafe_repository` when git refuses a
 * repository another user owns.
 */
export async function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  const layout = checkTreeLayout(options.cwd);
  const argv = withDiffFlags(args);
  const env = options.env ?? process.env;
  const hooks = options.hooks;
  // git with the repository's hooks, inside the sandbox: the hooks get the tree (git directories
  // writable, their config and hooks read-only) and the environment of a guarded session.
  if (hooks) {
    const tree = await treePaths(options.cwd, hooks.sandbox);
    // The hooks get what the project's checks get (otto.jsonc sandbox_access), no more.
    const access = hooks.sandbox === "off" ? undefined : await accessOf(options.cwd, env);
    // A hook runs the tree's code (lint-staged from node_modules): what it leaves is settled as after a session's command.
    const watch = hooks.sandbox === "off" ? undefined : watchControls(tree);
    const result = await boxed(argv, options, env, tree, hooks.sandbox, true, access);
    const settled = watch ? settledLine(await settleControls(watch, env, (a, o) => runGit(a, { ...o, env }))) : undefined;
    return settled ? { ...result, stderr: `${result.stderr}\n${settled}` } : result;
  }
  // In a tree sandboxed code held, every local command runs boxed too: what git reads there
  // (attributes, a nested repository, the index) was written by code otto did not write.
  const mode = layout ? heldSandbox(layout.root) : undefined;
  const sub = subcommand(args) ?? "";
  // Fetch, push and ls-remote there go through otto's own git directory (airlock.ts).
  if (layout && mode && mode !== "off" && AIRLOCKED.has(sub) && detectSandbox(env).kind !== "none") {
    if (subcommandAt(argv) !== 0)
      throw new OttoError("git_airlock_unsupported", `otto's airlock takes no global options (${argv.join(" ")}).`);
    const tree = { root: layout.root, gitDirs: [...new Set([layout.gitDir, layout.commonDir])] };
    return airlockGit(argv, layout, env, airlockRun(options, env, tree));
  }
  if (layout && mode && mode !== "off" && !OUTSIDE.has(sub)) {
    // "auto" here even when the config says "required": no flow lets code run unboxed in that mode, so a
    // machine without a sandbox has no such tree; refusing otto's own cleanup would help no one.
    // Local commands need no network: none at all (no namespace to connect, nothing to reach).
    const local: SandboxAccess = { network: "none", allow_read: [], allow_write: [] };
    // The tree as otto's own git needs it: a temporary worktree's shared refs stay writable here (the airlock records fetched refs).
    return boxed(argv, options, env, { root: layout.root, gitDirs: [...new Set([layout.gitDir, layout.commonDir])] }, "auto", false, local);
  }
  return spawnGit(argv, options, [gitBinary(env, layout?.root ?? options.cwd, options.binary), ...argv], options.env, false);
}

/**
 * Network commands need the user's credentials, and `worktree` writes outside the tree: they run
 * outside the sandbox, after the layout check and with the hardened configuration.
 */
const OUTSIDE = new Set([...NETWORK, "worktree", "init"]);

function boxed(
  argv: string[],
  options: GitOptions,
  env: Env,
  tree: TreePaths,
  mode: SandboxMode,
  hooks: boolean,
  access?: SandboxAccess,
): Promise<GitResult> {
  const line = [options.binary ?? "git", ...argv].map(shellQuote).join(" ");
  const plan = planCommand({ mode, cwd: options.cwd, tree, env, ...(access ? { access } : {}) }, line);
  if (plan.sandbox === "none" && !hooks)
    return spawnGit(argv, options, [gitBinary(env, tree.root, options.binary), ...argv], options.env, false);
  return spawnGit(argv, options, plan.argv, guardedEnvironment(env), hooks);
}

/** How the airlock runs git: in otto's own directory, in the sandbox (no network), or outside any repository. */
function airlockRun(options: GitOptions, env: Env, tree: TreePaths): AirlockRun {
  const plain = (args: string[], cwd: string, config: ReadonlyArray<readonly [string, string]>) =>
    spawnGit(args, { ...options, cwd, raw: false }, [gitBinary(env, tree.root, options.binary), ...args], withConfig(env, config), false);
  return {
    own: plain,
    bare: (args) => plain(args, "/", []),
    tree: (args, extra = {}) => {
      const access: SandboxAccess = { network: "none", allow_read: extra.readOnly ?? [], allow_write: [] };
      const run: GitOptions = { ...options, raw: extra.raw === true };
      // The caller's stdin was for its own command, not for these.
      if (extra.input !== undefined) run.input = extra.input;
      else delete run.input;
      return boxed(args, run, env, tree, "auto", false, access);
    },
  };
}

/** `env` with `entries` as command-line configuration (GIT_CONFIG_*, never argv: a token in a URL stays out of `ps`). */
function withConfig(env: Env, entries: ReadonlyArray<readonly [string, string]>): Env {
  return entries.length === 0 ? env : { ...env, ...gitConfigVars(env, entries) };
}

/**
 * The tree around `cwd` and its git directories (a linked worktree has its own and the common
 * one), for the sandbox: from otto's record of the tree's layout, never from git run in a tree
 * sandboxed code may have written (tree-layout.ts). `sandbox`: the mode the code about to run
 * there is wrapped in; from then on otto's own local git in that tree runs in the sandbox too.
 * Throws `git_layout_changed` / `git_layout_invalid`.
 */
export async function treePaths(cwd: string, sandbox?: SandboxMode): Promise<TreePaths> {
  const layout = checkTreeLayout(cwd, sandbox);
  if (!layout) return { root: cwd, gitDirs: [] };
  const shared = layout.gitDir !== layout.commonDir && isOwnWorktree(layout.root) ? { sharedCommon: layout.commonDir } : {};
  return { root: layout.root, gitDirs: [...new Set([layout.gitDir, layout.commonDir])], ...shared };
}

/** One git process: `argv` is git's (or the sandbox's around it); `hooks` keeps the repository's hooks path. */
function spawnGit(
  args: readonly string[],
  options: GitOptions,
  argv: readonly string[],
  env: Env | undefined,
  hooks: boolean,
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
      env: gitEnvironment(env, { hooks }),
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
      const refused = code === 128 ? unsafeRepository(Buffer.concat(stderr).toString("utf8")) : undefined;
      if (refused) {
        finish(() => reject(refused));
        return;
      }
      finish(() =>
        resolve({
          exitCode: code ?? (signal ? 128 : -1),
          stdout: Buffer.concat(stdout).toString("utf8"),
          stderr: Buffer.concat(stderr).toString("utf8"),
          ...(options.raw ? { bytes: Buffer.concat(stdout) } : {}),
        }),
      );
    });
  });
}

/**
 * Git refuses a repository owned by another user (its safe.directory check): no command works
 * there, and a caller that read the failure as "not a repository" would give the wrong advice.
 */
function unsafeRepository(stderr: string): OttoError | undefined {
  const at = /detected dubious ownership in repository at '([^']+)'/.exec(stderr)?.[1];
  if (at === undefined) return undefined;
  return new OttoError(
    "git_unsafe_repository",
    `git refuses to work in ${at}: it is owned by another user than the one running OpenCode (git's safe.directory check), so otto can neither read nor commit there.`,
    `If you trust it, run git config --global --add safe.directory '${at.replace(/'/g, `'\\''`)}' and then the command again; or run OpenCode as the user who owns it.`,
  );
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
