import fs from "node:fs";
import { pushBlockingEnv, SERVER_AUTH_VARIABLES, TOKEN_VARIABLES } from "./push-env.ts";

/*
 * The environment inside the sandbox: an allow-list, not the user's environment less the names
 * otto knows. Provider keys (ANTHROPIC_API_KEY…), cloud credentials and every other variable a
 * build does not need stay outside. The filter runs before the sandbox starts: bubblewrap's own
 * `--clearenv` would leave the whole environment readable in `/proc/1/environ` (bubblewrap's
 * process inside the PID namespace), so the sandbox is started by `env -i` with the allowed
 * variables alone. Values are read when the command runs (the launcher of a session's shell is
 * shared by hash, and PATH differs between shells), by a few lines of POSIX shell in front of it.
 */

/** What builds and shells need; none of these holds a credential. */
const ALLOWED = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_COLLATE",
  "LC_MESSAGES",
  "LC_MONETARY",
  "LC_NUMERIC",
  "LC_TIME",
  "LC_ADDRESS",
  "LC_IDENTIFICATION",
  "LC_MEASUREMENT",
  "LC_NAME",
  "LC_PAPER",
  "LC_TELEPHONE",
  "TZ",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "TMPDIR",
  "PWD",
  "CI",
  "NODE_ENV",
  "NODE_OPTIONS",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "JAVA_HOME",
  "GRADLE_USER_HOME",
  "GOPATH",
  "GOROOT",
  "GOCACHE",
  "GOMODCACHE",
  "GOFLAGS",
  "GOPROXY",
  "GOPRIVATE",
  "GONOSUMDB",
  "GOTOOLCHAIN",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "RUSTUP_TOOLCHAIN",
  "PYENV_ROOT",
  "PYENV_VERSION",
  "VIRTUAL_ENV",
  // Set by otto for a check: the fresh bytecode folder (checks.ts).
  "PYTHONPYCACHEPREFIX",
  "CONDA_PREFIX",
  "PIP_CACHE_DIR",
  "UV_CACHE_DIR",
  "POETRY_CACHE_DIR",
  "NVM_DIR",
  "NVM_BIN",
  "VOLTA_HOME",
  "BUN_INSTALL",
  "BUN_INSTALL_CACHE_DIR",
  "DENO_DIR",
  "DENO_INSTALL",
  "COREPACK_HOME",
  "PLAYWRIGHT_BROWSERS_PATH",
  "YARN_CACHE_FOLDER",
  "ASDF_DIR",
  "ASDF_DATA_DIR",
  "MISE_DATA_DIR",
  "SDKMAN_DIR",
  "NUGET_PACKAGES",
  "DOTNET_ROOT",
  "npm_config_cache",
  "npm_config_registry",
  "npm_config_prefix",
  "NPM_CONFIG_CACHE",
  "NPM_CONFIG_REGISTRY",
  "NPM_CONFIG_PREFIX",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_DATE",
  // Git's fallback for user.email: without it a commit inside fails, or takes an address made from the host name.
  "EMAIL",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_CONFIG_NOSYSTEM",
];

/** Never passed, whatever else says so: forge tokens, the server's password, the agent's socket. */
const NEVER = new Set<string>([...TOKEN_VARIABLES, ...SERVER_AUTH_VARIABLES, "SSH_AUTH_SOCK"]);

/** Git reads numbered GIT_CONFIG_KEY_n / VALUE_n up to GIT_CONFIG_COUNT; the filter passes that many, up to this. */
const MAX_GIT_CONFIG = 64;

/**
 * The names passed into the sandbox: the allow-list and every variable otto sets in the guarded
 * environment (push-env.ts: the push block's GIT_CONFIG_* entries among them), so pushes stay
 * blocked inside. The numbered GIT_CONFIG_KEY_n / VALUE_n are passed by count, not by name.
 */
export function sandboxEnvNames(): string[] {
  const guarded = Object.keys(pushBlockingEnv({ env: {}, emptyConfigDir: "/" })).filter(
    (name) => !/^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(name),
  );
  return [...new Set([...ALLOWED, ...guarded])].filter((name) => !NEVER.has(name));
}

/**
 * A POSIX shell script for `sh -c <script> otto-sandbox [NAME=value…] <argv…>`: runs argv with
 * the allowed variables of its own environment alone (then the given defaults). Names are fixed
 * identifiers, so `eval` only ever expands a variable; values are never evaluated.
 */
export function envFilterScript(envBinary: string = fs.existsSync("/usr/bin/env") ? "/usr/bin/env" : "env"): string {
  const pass = (name: string) => `eval "[ -z \\"\\\${${name}+x}\\" ] || set -- \\"${name}=\\\${${name}}\\" \\"\\$@\\""`;
  return [
    `for n in ${sandboxEnvNames().join(" ")}; do ${pass("$n")}; done`,
    "c=${GIT_CONFIG_COUNT:-0}; case $c in *[!0-9]*) c=0 ;; esac; i=0",
    `while [ "$i" -lt "$c" ] && [ "$i" -lt ${MAX_GIT_CONFIG} ]; do ${pass("GIT_CONFIG_KEY_$i")}; ${pass("GIT_CONFIG_VALUE_$i")}; i=$((i + 1)); done`,
    `exec ${envBinary} -i "$@"`,
  ].join("\n");
}

/** The argv that runs `argv` with the filtered environment, plus `defaults` ("NAME=value") for what is not set. */
export function withFilteredEnv(argv: readonly string[], defaults: readonly string[] = []): string[] {
  return ["/bin/sh", "-c", envFilterScript(), "otto-sandbox", ...defaults, ...argv];
}
