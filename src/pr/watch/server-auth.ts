import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../../core/index.ts";

/*
 * The detached watcher's `opencode serve` always has a password. Without one, anything on the
 * machine that can reach 127.0.0.1 (a session's `curl`, another user's process) could create a
 * session there that otto does not guard and have it push. The password is the user's
 * (OPENCODE_SERVER_PASSWORD or opencode.password) when set, else one otto generates once and keeps
 * in a 0600 file under its data dir. That file is written in systemd's EnvironmentFile= format, so
 * the unit reads it instead of holding the password itself.
 */

/** The file holding the watcher server's credentials (`NAME=value` lines, mode 0600). */
export const serverAuthFile = (dataDir: string): string => path.join(dataDir, "watch-server.env");

export interface ServerAuth {
  username: string;
  password: string;
  /** True when otto generated the password (none was configured). */
  generated: boolean;
}

export interface ServerAuthInput {
  /** config.opencode: the env layer already put OPENCODE_SERVER_PASSWORD / USERNAME there. */
  opencode: { username: string; password?: string | undefined };
  dataDir: string;
  /** 32 random bytes by default; tests pass their own. */
  random?: () => string;
}

/** 256 bits from the OS's CSPRNG; base64url has no character EnvironmentFile= or a shell would read specially. */
const generate = (): string => randomBytes(32).toString("base64url");

/** Reads `NAME=value` lines of the credentials file; undefined when it is missing or unreadable. */
function readAuthFile(file: string): Record<string, string> | undefined {
  try {
    const out: Record<string, string> = {};
    for (const line of fs.readFileSync(file, "utf8").split("\n")) {
      const eq = line.indexOf("=");
      if (eq > 0) out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
    }
    return out;
  } catch {
    return undefined;
  }
}

/** Writes the credentials file 0600 (a temporary file, then a rename, so no reader sees half of it or wider modes). */
export function writeServerAuthFile(file: string, auth: Pick<ServerAuth, "username" | "password">): void {
  if (/[\r\n]/.test(auth.password) || /[\r\n=]/.test(auth.username)) {
    // EnvironmentFile= reads one assignment per line.
    throw new OttoError(
      "watch_password",
      "The OpenCode server's username or password has a line break (or the username an '='); it cannot be written to the watcher's EnvironmentFile.",
      "Set OPENCODE_SERVER_PASSWORD / opencode.password and OPENCODE_SERVER_USERNAME / opencode.username without them.",
    );
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `OPENCODE_SERVER_USERNAME=${auth.username}\nOPENCODE_SERVER_PASSWORD=${auth.password}\n`, { mode: 0o600 });
  fs.chmodSync(temp, 0o600);
  fs.renameSync(temp, file);
}

/**
 * The credentials of the watcher's server: the configured password, or the stored generated one,
 * or a new one (stored 0600 before it is used, so the systemd unit and a later `--detach` agree).
 */
export function watcherServerAuth(input: ServerAuthInput): ServerAuth {
  const username = input.opencode.username;
  if (input.opencode.password) return { username, password: input.opencode.password, generated: false };
  const file = serverAuthFile(input.dataDir);
  const stored = readAuthFile(file)?.OPENCODE_SERVER_PASSWORD;
  if (stored) {
    if (readAuthFile(file)?.OPENCODE_SERVER_USERNAME !== username) writeServerAuthFile(file, { username, password: stored });
    // A file some other tool widened is narrowed again.
    fs.chmodSync(file, 0o600);
    return { username, password: stored, generated: true };
  }
  const password = (input.random ?? generate)();
  writeServerAuthFile(file, { username, password });
  return { username, password, generated: true };
}

/** The HTTP Basic header of these credentials (OpenCode's server auth). */
export const basicAuth = (auth: Pick<ServerAuth, "username" | "password">): string =>
  `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}`;
