import { OttoError } from "../../core/index.ts";
import { WATCH_ENV, WATCH_MODE_ENV } from "./detach.ts";

/*
 * `watch install`: a systemd user unit that runs the same headless `opencode serve` with the
 * watcher, restarted on failure. Credentials are not written into it: the server's password comes
 * from otto's 0600 EnvironmentFile (server-auth.ts), forge tokens from otto.jsonc or an
 * EnvironmentFile the user adds (`systemctl --user edit otto-watch`).
 * https://www.freedesktop.org/software/systemd/man/latest/systemd.service.html
 */

export const UNIT_NAME = "otto-watch.service";

/** Variables the service needs to find the same files and tools as the shell that installed it. */
const PASSED = ["PATH", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"];

const C_ESCAPES: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r" };

/**
 * A double-quoted word as systemd reads it back: C-style escapes inside quotes (`\\`, `\"`, `\n`,
 * `\xNN`), then specifiers (`%%` is a literal %).
 * https://www.freedesktop.org/software/systemd/man/latest/systemd.syntax.html#Quoting
 * https://www.freedesktop.org/software/systemd/man/latest/systemd.unit.html#Specifiers
 */
function quoteWord(value: string): string {
  const escaped = value
    .replace(/[\\"]/g, (c) => `\\${c}`)
    // ASCII controls only: systemd's \xNN is a byte, and C1 controls are valid UTF-8 as they are.
    .replace(/\p{Cc}/gu, (c) => (c.charCodeAt(0) > 0x7f ? c : (C_ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)))
    .replace(/%/g, "%%");
  return `"${escaped}"`;
}

/**
 * A word of ExecStart=: command lines also expand `$VAR` and `${VAR}`, so `$$` is a literal $.
 * https://www.freedesktop.org/software/systemd/man/latest/systemd.service.html#Command%20lines
 */
export const quoteExec = (value: string): string => quoteWord(value).replace(/\$/g, "$$$$");

/**
 * One Environment= assignment: no variable expansion there ("$" has no special meaning), so `$`
 * must stay single. https://www.freedesktop.org/software/systemd/man/latest/systemd.exec.html#Environment=
 */
export const quoteEnvironment = (name: string, value: string): string => quoteWord(`${name}=${value}`);

/** A POSIX shell single-quoted word: `'` closes, an escaped quote, and reopens. */
const shellQuote = (value: string): string => `'${value.replace(/'/g, "'\\''")}'`;

/**
 * A path setting (WorkingDirectory=) is taken verbatim, unquoted: only specifiers are resolved. A
 * line break would end the setting, a trailing backslash would continue it on the next line and
 * trailing blanks are stripped, so such a path cannot be written and is refused.
 */
function pathSetting(dir: string): string {
  if (/\p{Cc}/u.test(dir) || /[\s\\]$/.test(dir) || !dir.startsWith("/")) {
    throw new OttoError(
      "watch_unit_path",
      `The directory ${JSON.stringify(dir)} cannot be written as a systemd WorkingDirectory= (control characters, a trailing blank or backslash, or not absolute).`,
      "Run /otto-pr watch install from a directory whose path has none of these, or use /otto-pr watch start --detach.",
    );
  }
  return dir.replace(/%/g, "%%");
}

/**
 * The one request that makes the service's `opencode serve` load otto. A server with
 * OPENCODE_SERVER_PASSWORD (from an EnvironmentFile, say) refuses a request without basic auth and
 * never loads otto, so the header is built from the service's environment (as `poke` does for
 * `--detach`); it reaches curl on stdin (`-H @-`), never on a command line that `ps` shows.
 */
export function pokeScript(port: number, directory: string): string {
  const url = `http://127.0.0.1:${port}/path?directory=${encodeURIComponent(directory)}`;
  const auth = `auth() { [ -n "$OPENCODE_SERVER_PASSWORD" ] && printf 'Authorization: Basic %s\\n' "$(printf '%s:%s' "\${OPENCODE_SERVER_USERNAME:-opencode}" "$OPENCODE_SERVER_PASSWORD" | base64 | tr -d '\\n')"; }`;
  return `${auth}; for i in $(seq 60); do auth | curl -fsS -o /dev/null -H @- ${shellQuote(url)} && exit 0; sleep 1; done; exit 1`;
}

export function renderUnit(options: {
  opencode: string;
  directory: string;
  port: number;
  env: Record<string, string | undefined>;
  environmentFile: string;
}): string {
  const env = PASSED.filter((k) => options.env[k]).map((k) => `Environment=${quoteEnvironment(k, options.env[k] ?? "")}`);
  return [
    "[Unit]",
    "Description=otto PR watcher (headless OpenCode with OTTO_WATCH=1)",
    "After=network-online.target",
    "Wants=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    `WorkingDirectory=${pathSetting(options.directory)}`,
    `Environment=${WATCH_ENV}=1`,
    `Environment=${WATCH_MODE_ENV}=service`,
    ...env,
    // The server's password (OPENCODE_SERVER_PASSWORD), for `opencode serve` and the wake-up request alike.
    `EnvironmentFile=${pathSetting(options.environmentFile)}`,
    `ExecStart=${quoteExec(options.opencode)} serve --hostname 127.0.0.1 --port ${options.port}`,
    // `opencode serve` loads plugins when a request names a directory: this one makes it load otto.
    // "-": a missing curl must not fail the unit (`watch status` then shows no watcher).
    `ExecStartPost=-/bin/sh -c ${quoteExec(pokeScript(options.port, options.directory))}`,
    "Restart=on-failure",
    "RestartSec=30",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}
