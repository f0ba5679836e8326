import crypto from "node:crypto";
import fs from "node:fs";
import { execa, type ResultPromise } from "execa";

/**
 * Every process a test starts must die with the test, including what it spawned. Two nets catch
 * them: each command runs as the leader of its own process group, and carries a unique
 * `OTTO_TEST_PROC` token in its environment. The token matters because OpenCode's bash tool starts
 * commands in a new session (own process group), and a backgrounded `sleep 600 &` is reparented
 * to init at once, so neither the group nor the parent chain finds it, but it inherits the env.
 * (A process that clears its environment escapes both; nothing in OpenCode does.)
 */

export interface ProcessHandle {
  /** Process group id = pid of the command. */
  pgid: number;
  /** Value of OTTO_TEST_PROC in the environment of the command and everything it spawns. */
  token: string;
}

const TOKEN_VAR = "OTTO_TEST_PROC";
const live = new Map<string, ProcessHandle>();
// Started on purpose to outlive a test file (a worker's pooled server, test/support/e2e.ts): not
// counted by liveHandles(), still killed with the worker.
const kept = new Map<string, ProcessHandle>();
let exitOnTerm = false;

interface ProcInfo {
  pid: number;
  pgid: number;
  zombie: boolean;
}

function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name: state ppid pgrp ... (man 5 proc).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid, pgid: Number(fields[2]), zombie: fields[0] === "Z" };
  } catch {
    return undefined;
  }
}

function hasToken(pid: number, token: string): boolean {
  try {
    // Each entry ends in NUL; the leading NUL added here lets the first entry match too (the
    // order of a child's environment is up to whoever spawned it, e.g. OpenCode's bash tool).
    return `\0${fs.readFileSync(`/proc/${pid}/environ`, "utf8")}`.includes(`\0${TOKEN_VAR}=${token}\0`);
  } catch {
    return false;
  }
}

/** Live (non-zombie) pids in the handle's process group or carrying its token. Linux only. */
export function survivors(handle: ProcessHandle): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProc(Number(entry));
    if (!info || info.zombie) continue;
    if (info.pgid === handle.pgid || hasToken(info.pid, handle.token)) found.push(info.pid);
  }
  return found;
}

/** Handles started through spawnTracked that still have survivors (should be [] between tests). */
export function liveHandles(): ProcessHandle[] {
  return [...live.values()].filter((h) => survivors(h).length > 0);
}

function signalAll(handle: ProcessHandle, signal: NodeJS.Signals): void {
  for (const pid of [-handle.pgid, ...survivors(handle)]) {
    try {
      process.kill(pid, signal);
    } catch {
      // ESRCH: already gone, which is what we wanted.
    }
  }
}

// One listener per worker (the module is evaluated once per vitest worker): a worker that exits
// early (failed hook, Ctrl-C) still takes its processes down.
process.once("exit", () => {
  for (const handle of [...live.values(), ...kept.values()]) signalAll(handle, "SIGKILL");
});

/** Marks a process as the worker's, to live across its test files (see `kept`). */
export function keepForWorker(handle: ProcessHandle): void {
  live.delete(handle.token);
  kept.set(handle.token, handle);
  // vitest ends a worker with SIGTERM, which skips "exit" listeners unless the process exits itself.
  if (!exitOnTerm) process.once("SIGTERM", () => process.exit(143));
  exitOnTerm = true;
}

export interface SpawnOptions {
  cwd: string;
  env: Record<string, string>;
  /** Keep output in memory (short runs); false streams it (serve). */
  buffer: boolean;
}

/** Starts a command as the leader of a new process group, with stdin closed and a fresh token. */
export function spawnTracked(file: string, args: string[], options: SpawnOptions): { subprocess: ResultPromise; handle: ProcessHandle } {
  const token = crypto.randomUUID();
  const subprocess = execa(file, args, {
    cwd: options.cwd,
    env: { ...options.env, [TOKEN_VAR]: token },
    extendEnv: false,
    stdin: "ignore",
    buffer: options.buffer,
    reject: false,
    detached: true,
    // execa's own cleanup only kills the leader; the exit listener above kills everything.
    cleanup: false,
    stripFinalNewline: false,
  });
  if (subprocess.pid === undefined) throw new Error(`could not start ${file}`);
  const handle = { pgid: subprocess.pid, token };
  live.set(token, handle);
  return { subprocess, handle };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Stops a command and everything it spawned: SIGTERM, SIGKILL after `graceMs`, then waits until
 * /proc shows none of them, so a test asserting "nothing leaked" right after cannot race the kernel.
 */
export async function stopTracked(handle: ProcessHandle, graceMs = 2_000): Promise<void> {
  if (survivors(handle).length > 0) {
    signalAll(handle, "SIGTERM");
    const deadline = Date.now() + graceMs;
    while (survivors(handle).length > 0 && Date.now() < deadline) await sleep(25);
    const hardDeadline = Date.now() + 5_000;
    while (survivors(handle).length > 0) {
      signalAll(handle, "SIGKILL");
      if (Date.now() > hardDeadline) throw new Error(`processes of ${handle.pgid} survived SIGKILL: ${survivors(handle).join(", ")}`);
      await sleep(25);
    }
  }
  live.delete(handle.token);
  kept.delete(handle.token);
}
