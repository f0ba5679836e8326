import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../../core/index.ts";
import { holderAlive, readWatcherRecord, type LockDeps } from "./lock.ts";

/*
 * `watch start --detach`: a headless `opencode serve` in its own session (setsid, so it survives
 * the terminal), with OTTO_WATCH=1 so otto starts the watcher when OpenCode loads it. Output goes
 * to a log file; the PID goes to `$XDG_DATA_HOME/otto/watcher.pid`.
 */

/** Environment that makes otto start its watcher on load (see startWatcherFromEnv). */
export const WATCH_ENV = "OTTO_WATCH";
export const WATCH_MODE_ENV = "OTTO_WATCH_MODE";

export interface DetachOptions {
  /** The OpenCode binary (process.execPath inside OpenCode). */
  opencode: string;
  directory: string;
  env: Record<string, string | undefined>;
  port: number;
  logFile: string;
  pidFile: string;
  lock: LockDeps;
  /** How long to wait for the watcher to take the lock. */
  timeoutMs: number;
  sleep(ms: number): Promise<void>;
}

const tail = (file: string): string => {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-15).join("\n");
  } catch {
    return "";
  }
};

/**
 * One request that makes `opencode serve` create the project's instance (and so load otto); false
 * while it is not listening yet. Basic auth when the server has a password.
 */
export async function poke(port: number, directory: string, env: Record<string, string | undefined>): Promise<boolean> {
  const headers: Record<string, string> = { "x-opencode-directory": directory };
  const password = env.OPENCODE_SERVER_PASSWORD;
  if (password)
    headers.authorization = `Basic ${Buffer.from(`${env.OPENCODE_SERVER_USERNAME || "opencode"}:${password}`).toString("base64")}`;
  try {
    const response = await fetch(`http://127.0.0.1:${port}/path?directory=${encodeURIComponent(directory)}`, {
      headers,
      signal: AbortSignal.timeout(5_000),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Starts `opencode serve` on 127.0.0.1:`port` in its own session, output appended to `logFile`: the
 * one place otto starts a server. Without OPENCODE_SERVER_PASSWORD in `env` it starts nothing: a
 * server without one would take any local caller's request (a session's `curl`, another user's
 * process) and run an unguarded session for it.
 */
export function spawnServe(options: {
  opencode: string;
  directory: string;
  env: Record<string, string | undefined>;
  port: number;
  logFile: string;
}): ChildProcess {
  if (!options.env.OPENCODE_SERVER_PASSWORD)
    throw new OttoError(
      "watch_password",
      "otto starts no opencode serve without a password (OPENCODE_SERVER_PASSWORD is empty).",
      "Set OPENCODE_SERVER_PASSWORD or opencode.password, or let /otto-pr watch start --detach generate one.",
    );
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const out = fs.openSync(options.logFile, "a");
  try {
    return spawn(options.opencode, ["serve", "--hostname", "127.0.0.1", "--port", String(options.port)], {
      cwd: options.directory,
      env: {
        ...(Object.fromEntries(Object.entries(options.env).filter(([, v]) => v !== undefined)) as Record<string, string>),
        PWD: options.directory,
      },
      detached: true,
      stdio: ["ignore", out, out],
    });
  } finally {
    fs.closeSync(out);
  }
}

export async function startDetached(options: DetachOptions): Promise<{ pid: number }> {
  fs.mkdirSync(path.dirname(options.pidFile), { recursive: true });
  const env = { ...options.env, [WATCH_ENV]: "1", [WATCH_MODE_ENV]: "detached" };
  let exited: number | null | undefined;
  const child = spawnServe({ opencode: options.opencode, directory: options.directory, env, port: options.port, logFile: options.logFile });
  const pid = child.pid;
  child.on("exit", (code) => {
    exited = code;
  });
  child.on("error", () => {
    exited = -1;
  });
  child.unref();
  if (pid === undefined) throw new OttoError("watch_detach", `Could not start ${options.opencode} serve.`, `See ${options.logFile}.`);
  fs.writeFileSync(options.pidFile, `${pid}\n`);
  let poked = false;
  for (let waited = 0; waited < options.timeoutMs; waited += 200) {
    // `opencode serve` loads plugins only when a request names a directory; this one makes it load otto.
    poked ||= await poke(options.port, options.directory, options.env);
    const record = await readWatcherRecord(options.lock.file);
    if (record?.pid === pid && holderAlive(record, options.lock)) return { pid };
    if (exited !== undefined) break;
    await options.sleep(200);
  }
  if (exited === undefined) process.kill(pid, "SIGTERM");
  fs.rmSync(options.pidFile, { force: true });
  throw new OttoError(
    "watch_detach",
    `The detached watcher (opencode serve, pid ${pid}) did not start${exited !== undefined ? ` (exit ${String(exited)})` : ` within ${options.timeoutMs / 1000} s`}. Log ${options.logFile}:\n${tail(options.logFile)}`,
    `Is port ${options.port} free? Set server.port, or run /otto-pr watch start inside the OpenCode TUI.`,
  );
}

/** Ends a watcher process (SIGTERM, then SIGKILL) and waits for it to exit. */
export async function stopProcess(pid: number, isAlive: (pid: number) => boolean, sleep: (ms: number) => Promise<void>): Promise<boolean> {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return false;
  }
  for (let waited = 0; waited < 10_000; waited += 100) {
    if (!isAlive(pid)) return true;
    await sleep(100);
  }
  process.kill(pid, "SIGKILL");
  return true;
}

export function readPidFile(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
