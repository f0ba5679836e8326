import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, onTestFinished } from "vitest";

/** Real git in temp dirs, with a bare repository on disk standing in for GitHub/ADO. */

/**
 * Removes `dir` when the running test ends, or, made outside a test (a file's setup), when the file
 * ends. A shared module's own afterEach would not do: the test files of a worker share modules
 * (vitest.config.ts, isolate: false), so it would be registered for the first file only.
 */
export function removeAfterTest(dir: string): void {
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    afterAll(remove);
  }
}

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Git's environment: the parent's minus every GIT_* variable (inside a git hook GIT_DIR and
 * GIT_INDEX_FILE point at the outer repo) and without the user's global or system config.
 */
export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("GIT_")) env[key] = value;
  }
  return { ...env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: os.devNull, GIT_TERMINAL_PROMPT: "0", ...extra };
}

/** Runs git; never throws on a non-zero exit (callers decide). */
/** Who the tests' own commits are by (a clone in a developer's home has no identity of its own). */
const TEST_AUTHOR = {
  GIT_AUTHOR_NAME: "Otto Test",
  GIT_AUTHOR_EMAIL: "otto-test@example.invalid",
  GIT_COMMITTER_NAME: "Otto Test",
  GIT_COMMITTER_EMAIL: "otto-test@example.invalid",
};

export async function runGit(args: string[], cwd: string, options: { timeoutMs?: number } = {}): Promise<GitResult> {
  const result = await execa("git", args, {
    cwd,
    env: gitEnv(TEST_AUTHOR),
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    stripFinalNewline: false,
    timeout: options.timeoutMs ?? 30_000,
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Runs git and returns trimmed stdout; throws with the command and stderr when it fails. */
export async function git(args: string[], cwd: string): Promise<string> {
  const result = await runGit(args, cwd);
  if (result.exitCode !== 0) {
    throw new Error(`git ${args.join(" ")} failed in ${cwd} (exit ${result.exitCode}):\n${result.stderr || result.stdout}`);
  }
  return result.stdout.trim();
}

export interface LogEntry {
  sha: string;
  subject: string;
  author: string;
}

function parseLog(stdout: string): LogEntry[] {
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [sha = "", author = "", subject = ""] = line.split("\x1f");
      return { sha, author, subject };
    });
}

export interface Repo {
  /** The working clone. */
  dir: string;
  /** Path of the bare remote (`origin`); empty when the repo has none. */
  remote: string;
  /** Runs git in the working clone; throws on failure, returns trimmed stdout. */
  git(args: string[]): Promise<string>;
  /** Runs git in the bare remote. */
  gitRemote(args: string[]): Promise<string>;
  /** Writes files (relative paths, parents created) and commits them all. Returns the new sha. */
  commit(message: string, files?: Record<string, string>): Promise<string>;
  /** Commits newest first, of `ref` in the working clone (default HEAD). */
  log(ref?: string): Promise<LogEntry[]>;
  /** Commits newest first of a branch as the remote has it. */
  remoteLog(branch?: string): Promise<LogEntry[]>;
  /** A file's content at the remote's `ref` (default main); undefined when absent. */
  remoteFile(file: string, ref?: string): Promise<string | undefined>;
  /** Branch names at the remote. */
  remoteBranches(): Promise<string[]>;
  /** Removes the clone and the remote (and the temp dir createRepo made for them). */
  cleanup(): void;
}

export interface RepoOptions {
  /** Where the working clone goes; default: a new temp dir. */
  dir?: string;
  /** Files of the initial commit (default: README.md). */
  files?: Record<string, string>;
  /** Create a bare remote next to the clone and push main to it (default true). */
  remote?: boolean;
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

/** The initial commit when a test gives no files. */
export const DEFAULT_FILES: Readonly<Record<string, string>> = { "README.md": "# test project\n" };

const LOG_FORMAT = "--format=%H%x1f%an%x1f%s";

/**
 * A git repository on branch `main` with one commit (user.name/email set locally, so commits work
 * with an isolated HOME), and by default a bare remote `origin` at `<dir>.remote.git` that has it.
 * Call `cleanup()` when done (createWorkspace does it for its project repo).
 */
export async function createRepo(options: RepoOptions = {}): Promise<Repo> {
  const tempRoot = options.dir === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), "otto-repo-")) : undefined;
  const dir = options.dir ?? path.join(tempRoot ?? "", "repo");
  fs.mkdirSync(dir, { recursive: true });
  const remote = options.remote === false ? "" : `${dir}.remote.git`;
  await git(["init", "-q", "-b", "main"], dir);
  await git(["config", "user.name", "Otto Test"], dir);
  await git(["config", "user.email", "otto-test@example.invalid"], dir);
  await git(["config", "commit.gpgsign", "false"], dir);
  writeFiles(dir, options.files ?? DEFAULT_FILES);
  await git(["add", "-A"], dir);
  await git(["commit", "-q", "-m", "Initial commit"], dir);
  if (remote) {
    await git(["init", "-q", "--bare", "-b", "main", remote], path.dirname(remote));
    await git(["remote", "add", "origin", remote], dir);
    await git(["push", "-q", "-u", "origin", "main"], dir);
  }

  const inRemote = (args: string[]): Promise<string> => {
    if (!remote) throw new Error("this repo was created without a remote");
    return git(args, remote);
  };
  return {
    dir,
    remote,
    git: (args) => git(args, dir),
    gitRemote: inRemote,
    async commit(message, files = {}) {
      writeFiles(dir, files);
      await git(["add", "-A"], dir);
      await git(["commit", "-q", "--allow-empty", "-m", message], dir);
      return git(["rev-parse", "HEAD"], dir);
    },
    log: async (ref = "HEAD") => parseLog(await git(["log", LOG_FORMAT, ref], dir)),
    remoteLog: async (branch = "main") => parseLog(await inRemote(["log", LOG_FORMAT, branch])),
    async remoteFile(file, ref = "main") {
      if (!remote) throw new Error("this repo was created without a remote");
      const result = await runGit(["show", `${ref}:${file}`], remote);
      return result.exitCode === 0 ? result.stdout : undefined;
    },
    remoteBranches: async () => (await inRemote(["for-each-ref", "--format=%(refname:short)", "refs/heads"])).split("\n").filter(Boolean),
    cleanup() {
      for (const target of tempRoot ? [tempRoot] : [dir, remote].filter(Boolean)) fs.rmSync(target, { recursive: true, force: true });
    },
  };
}

export const createRepoWithRemote = (options: Omit<RepoOptions, "remote"> = {}): Promise<Repo> => createRepo({ ...options, remote: true });
