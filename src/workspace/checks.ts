import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { redact, type Env } from "../core/index.ts";
import { guardedEnvironment } from "../sandbox/index.ts";
import { planCommand, type SandboxAccess, type SandboxMode } from "../sandbox/index.ts";
import { runGit, treePaths } from "./git.ts";
import { settleControls, settledLine, watchControls } from "./control-watch.ts";
import { accessOf } from "./sandbox-access.ts";

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
  /**
   * otto.jsonc `sandbox`: a check runs code a session or a PR may have written (a test script, a
   * config the test runner loads), so it runs in the sandbox, never with the user's credentials.
   */
  sandbox: SandboxMode;
  /**
   * otto.jsonc `sandbox_access` (network, allowed paths). Unset: read from the config of the tree
   * the check runs in, so no flow can forget it.
   */
  access?: SandboxAccess;
  /** Token values of otto's config: variables holding one are blanked like the forge tokens. */
  secrets?: readonly string[];
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

/**
 * The environment of a check: the user's, with every forge token and credential helper taken out
 * and pushes sent nowhere (the same as a guarded session's shell), with or without a sandbox.
 */
export function checkEnvironment(env: Env, secrets: readonly string[] = []): Record<string, string | undefined> {
  return guardedEnvironment(env, secrets, path.join(os.tmpdir(), "otto-no-forge-login"));
}

export async function runCheck(command: string, options: VerifyOptions): Promise<CheckResult> {
  const started = Date.now();
  const base = options.env ?? process.env;
  // Throws sandbox_required before anything runs when the config demands a sandbox that is missing.
  const access = options.access ?? (options.sandbox === "off" ? undefined : await accessOf(options.cwd, base));
  const tree = await treePaths(options.cwd, options.sandbox);
  const plan = planCommand({ mode: options.sandbox, cwd: options.cwd, tree, env: base, ...(access ? { access } : {}) }, command);
  const [file, ...args] = plan.argv;
  // What the command could leave for git and OpenCode outside the sandbox is looked at again after it (control-watch.ts).
  const watch = plan.sandbox === "none" ? undefined : watchControls(tree, { nested: true, env: base });
  // Python's bytecode in a folder of this run's own (Python 3.8+ neither reads nor writes the tree's
  // `__pycache__/` then): an ignored `.pyc` a session planted, unchecked-hash or with its source's
  // mtime and size, would otherwise run in place of the source the diff shows. Inside the sandbox it
  // lies in the private temp folder, fresh for each run.
  const pycache = path.join(os.tmpdir(), `otto-pycache-${randomBytes(6).toString("hex")}`);
  const child = execa(file ?? "/bin/sh", args, {
    cwd: options.cwd,
    env: { ...checkEnvironment(base, options.secrets), PYTHONPYCACHEPREFIX: pycache },
    extendEnv: false,
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
    const settled = watch ? settledLine(await settleControls(watch, base, (a, o) => runGit(a, { ...o, env: base }))) : undefined;
    const note =
      (timedOut ? `\n(killed after ${Math.round(options.timeoutMs / 1000)}s: spec.verify_timeout)` : "") + (settled ? `\n${settled}` : "");
    return {
      command,
      exitCode,
      passed: !timedOut && exitCode === 0,
      timedOut,
      durationMs: Date.now() - started,
      output: tail(redact(all)) + note,
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", killGroup);
    // Whatever the command left running in its group (a background server) goes too.
    killGroup();
    fs.rmSync(pycache, { recursive: true, force: true });
  }
}

function tail(text: string): string {
  const trimmed = text.trimEnd();
  return trimmed.length > OUTPUT_MAX ? `… (${trimmed.length - OUTPUT_MAX} characters cut)\n${trimmed.slice(-OUTPUT_MAX)}` : trimmed;
}

export function describeChecks(results: readonly CheckResult[]): string {
  return results.map((r) => `${r.command}: ${r.passed ? "passed" : r.timedOut ? "timed out" : `exit ${r.exitCode}`}`).join(", ");
}
