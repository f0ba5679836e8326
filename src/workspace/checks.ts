import { execa } from "execa";
import { redact } from "../core/index.ts";

/** One check command (spec.verify, pr.verify), run by otto (never by the model). */
export interface CheckResult {
  command: string;
  /** -1 when it could not start or was killed. */
  exitCode: number;
  passed: boolean;
  timedOut: boolean;
  durationMs: number;
  /** stdout and stderr interleaved, the end kept when long, secrets redacted. */
  output: string;
}

export interface VerifyOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
}

/** The end of a command's output that is kept: failures print their cause last. */
const OUTPUT_MAX = 12_000;

/**
 * Runs each command through the shell, one after the other, all of them (the fix session wants
 * every failure, not the first). A command runs as the leader of its own process group, so a
 * timeout or a cancelled tool kills it together with what it started (test runners, servers).
 */
export async function runChecks(commands: readonly string[], options: VerifyOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const command of commands) {
    if (options.signal?.aborted) break;
    results.push(await runCheck(command, options));
  }
  return results;
}

export async function runCheck(command: string, options: VerifyOptions): Promise<CheckResult> {
  const started = Date.now();
  const child = execa(command, {
    shell: true,
    cwd: options.cwd,
    env: options.env,
    all: true,
    reject: false,
    stdin: "ignore",
    detached: true,
    cleanup: true,
    maxBuffer: 64 * 1024 * 1024,
  });
  let timedOut = false;
  const killGroup = (): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, options.timeoutMs);
  options.signal?.addEventListener("abort", killGroup, { once: true });
  try {
    const result = await child;
    const all = typeof result.all === "string" ? result.all : "";
    const exitCode = timedOut || result.exitCode === undefined ? -1 : result.exitCode;
    const note = timedOut ? `\n(killed after ${Math.round(options.timeoutMs / 1000)}s: spec.verify_timeout)` : "";
    return { command, exitCode, passed: !timedOut && exitCode === 0, timedOut, durationMs: Date.now() - started, output: tail(redact(all)) + note };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", killGroup);
    // Whatever the command left running in its group (a background server) goes too.
    killGroup();
  }
}

function tail(text: string): string {
  const trimmed = text.trimEnd();
  return trimmed.length > OUTPUT_MAX ? `… (${trimmed.length - OUTPUT_MAX} characters cut)\n${trimmed.slice(-OUTPUT_MAX)}` : trimmed;
}

export function describeChecks(results: readonly CheckResult[]): string {
  return results.map((r) => `${r.command}: ${r.passed ? "passed" : r.timedOut ? "timed out" : `exit ${r.exitCode}`}`).join(", ");
}
