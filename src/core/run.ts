import { execa } from "execa";

/*
 * The seam for a program otto starts and waits for (a CLI, a notify command, systemctl): execa with
 * the options every such call shares (never throws on a failed exit, no stdin). Git has its own
 * runner (workspace/git.ts), and checks theirs (workspace/checks.ts: a process group to kill, the
 * sandbox). Not in the core barrel: the modules that start programs import it, nothing else pays
 * for loading execa.
 */

export interface RunOptions {
  /** Killed after this long (execa's `timeout`). */
  timeoutMs: number;
  cwd?: string;
  /** Passed to execa as is: undefined means the process's environment. */
  env: Record<string, string | undefined> | undefined;
  /** `file` is a command line for the shell (`args` stays empty). */
  shell?: boolean;
  /** Also collect stdout and stderr interleaved, in `all`. */
  all?: boolean;
}

export interface RunResult {
  /** Undefined when the program could not start (not installed) or was killed. */
  exitCode: number | undefined;
  /** Whether it failed: a non-zero exit, a timeout, or no start at all. */
  failed: boolean;
  /** The error code when it could not start (ENOENT, EACCES). */
  code: string | undefined;
  /** execa's description of a failure (names ENOENT for a program that is not installed); empty on success. */
  message: string;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved, with `all`; empty otherwise. */
  all: string;
}

export async function runProcess(file: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  const result = await execa(file, args, {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: options.env,
    ...(options.shell ? { shell: true } : {}),
    ...(options.all ? { all: true } : {}),
    timeout: options.timeoutMs,
    reject: false,
    stdin: "ignore",
  });
  return {
    exitCode: result.exitCode,
    failed: result.failed,
    code: "code" in result && typeof result.code === "string" ? result.code : undefined,
    message: typeof result.message === "string" ? result.message : "",
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    all: typeof result.all === "string" ? result.all : "",
  };
}
