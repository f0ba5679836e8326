import { WATCH_ENV, WATCH_MODE_ENV } from "./detach.ts";

/*
 * `watch install`: a systemd user unit that runs the same headless `opencode serve` with the
 * watcher, restarted on failure. Credentials are not written into it: they come from otto.jsonc
 * or an EnvironmentFile the user adds (`systemctl --user edit otto-watch`).
 * https://www.freedesktop.org/software/systemd/man/latest/systemd.service.html
 */

export const UNIT_NAME = "otto-watch.service";

/** Variables the service needs to find the same files and tools as the shell that installed it. */
const PASSED = ["PATH", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"];

// https://www.freedesktop.org/software/systemd/man/latest/systemd.unit.html#Specifiers ("%%" is a literal %)
// https://www.freedesktop.org/software/systemd/man/latest/systemd.service.html#Command%20lines ("$$" is a literal $)
const quote = (value: string): string => `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/%/g, "%%").replace(/\$/g, "$$$$")}"`;

/**
 * The one request that makes the service's `opencode serve` load otto. A server with
 * OPENCODE_SERVER_PASSWORD (from an EnvironmentFile, say) refuses a request without basic auth and
 * never loads otto, so the header is built from the service's environment (as `poke` does for
 * `--detach`); it reaches curl on stdin (`-H @-`), never on a command line that `ps` shows.
 */
export function pokeScript(port: number, directory: string): string {
  // encodeURIComponent leaves ' alone, and the URL sits in single quotes.
  const url = `http://127.0.0.1:${port}/path?directory=${encodeURIComponent(directory).replace(/'/g, "%27")}`;
  const auth = `auth() { [ -n "$OPENCODE_SERVER_PASSWORD" ] && printf 'Authorization: Basic %s\\n' "$(printf '%s:%s' "\${OPENCODE_SERVER_USERNAME:-opencode}" "$OPENCODE_SERVER_PASSWORD" | base64 | tr -d '\\n')"; }`;
  return `${auth}; for i in $(seq 60); do auth | curl -fsS -o /dev/null -H @- '${url}' && exit 0; sleep 1; done; exit 1`;
}

export function renderUnit(options: { opencode: string; directory: string; port: number; env: Record<string, string | undefined> }): string {
  const env = PASSED.filter((k) => options.env[k]).map((k) => `Environment=${quote(`${k}=${options.env[k] ?? ""}`)}`);
  return [
    "[Unit]",
    "Description=otto PR watcher (headless OpenCode with OTTO_WATCH=1)",
    "After=network-online.target",
    "Wants=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    // A path setting, not a command line: no quotes, only specifiers escaped.
    `WorkingDirectory=${options.directory.replace(/%/g, "%%")}`,
    `Environment=${WATCH_ENV}=1`,
    `Environment=${WATCH_MODE_ENV}=service`,
    ...env,
    `ExecStart=${quote(options.opencode)} serve --hostname 127.0.0.1 --port ${options.port}`,
    // `opencode serve` loads plugins when a request names a directory: this one makes it load otto.
    // "-": a missing curl must not fail the unit (`watch status` then shows no watcher).
    `ExecStartPost=-/bin/sh -c ${quote(pokeScript(options.port, options.directory))}`,
    "Restart=on-failure",
    "RestartSec=30",
    "",
    "[Install]",
    "WantedBy=default.target",
    "",
  ].join("\n");
}
