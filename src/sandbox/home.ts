import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";

/*
 * What of the user's home a sandboxed command sees. The home itself is an empty folder inside the
 * sandbox (its dotfiles, shell history, editor state and every credential file otto does not know
 * the name of are out of sight); these lists bring back what builds need. Toolchains come back
 * read-only: a command may run them, not change what the user runs next. Package stores come back
 * at store level only, each in a layer of the run's own (store-layer.ts): the folder a package
 * manager fills, never its settings beside it (`~/.m2/settings.xml`, `~/.gradle/init.d` and
 * `gradle.properties`, `~/.cargo/credentials.toml`), never `~/.cache` whole (OpenCode installs and loads its plugins, otto among them, from
 * `~/.cache/opencode`). Missing paths are skipped when the sandbox is built.
 */

/** Read-only: version managers and the binaries they installed. */
export function toolchainPaths(env: Env): string[] {
  const { home, data, cache } = xdgPaths(env);
  const cargo = env.CARGO_HOME || path.join(home, ".cargo");
  const paths = [
    env.NVM_DIR || path.join(home, ".nvm"),
    env.VOLTA_HOME || path.join(home, ".volta"),
    path.join(env.BUN_INSTALL || path.join(home, ".bun"), "bin"),
    env.DENO_INSTALL || path.join(home, ".deno"),
    path.join(cargo, "bin"),
    env.RUSTUP_HOME || path.join(home, ".rustup"),
    env.PYENV_ROOT || path.join(home, ".pyenv"),
    path.join(home, ".rbenv"),
    path.join(home, ".nodenv"),
    path.join(home, ".goenv"),
    path.join(home, ".local", "bin"),
    // `pip install --user` puts its modules here, beside the scripts in ~/.local/bin.
    path.join(home, ".local", "lib"),
    path.join(data, "virtualenvs"),
    path.join(data, "uv"),
    path.join(home, ".gem"),
    env.MISE_DATA_DIR || path.join(data, "mise"),
    path.join(data, "fnm"),
    path.join(home, ".fnm"),
    path.join(data, "pnpm"),
    env.ASDF_DATA_DIR || path.join(home, ".asdf"),
    env.SDKMAN_DIR || path.join(home, ".sdkman"),
    path.join(home, ".dotnet"),
    path.join(gopath(env, home), "bin"),
    // Corepack's pnpm and yarn, and Playwright's browsers: run, not refilled, inside.
    env.COREPACK_HOME || path.join(cache, "node", "corepack"),
    env.PLAYWRIGHT_BROWSERS_PATH || path.join(cache, "ms-playwright"),
  ];
  for (const name of ["JAVA_HOME", "GOROOT", "VIRTUAL_ENV"] as const) if (env[name]) paths.push(env[name]);
  return unique(paths);
}

/** The folders package managers fill (downloads, build caches): writable in a layer each run discards. */
export function storePaths(env: Env): string[] {
  const { home, data, cache } = xdgPaths(env);
  const cargo = env.CARGO_HOME || path.join(home, ".cargo");
  const gradle = env.GRADLE_USER_HOME || path.join(home, ".gradle");
  const paths = [
    env.npm_config_cache || env.NPM_CONFIG_CACHE || path.join(home, ".npm"),
    env.PIP_CACHE_DIR || path.join(cache, "pip"),
    env.UV_CACHE_DIR || path.join(cache, "uv"),
    // Poetry's downloads and the project's virtual environments (`poetry install` fills them).
    env.POETRY_CACHE_DIR || path.join(cache, "pypoetry"),
    env.GOCACHE || path.join(cache, "go-build"),
    env.GOMODCACHE || path.join(gopath(env, home), "pkg", "mod"),
    env.YARN_CACHE_FOLDER || path.join(cache, "yarn"),
    path.join(home, ".yarn", "berry", "cache"),
    path.join(cache, "pnpm"),
    path.join(data, "pnpm", "store"),
    path.join(home, ".pnpm-store"),
    env.BUN_INSTALL_CACHE_DIR || path.join(env.BUN_INSTALL || path.join(home, ".bun"), "install", "cache"),
    env.DENO_DIR || path.join(cache, "deno"),
    path.join(cache, "node-gyp"),
    path.join(cargo, "registry"),
    path.join(cargo, "git"),
    path.join(home, ".m2", "repository"),
    path.join(gradle, "caches"),
    path.join(gradle, "wrapper"),
    env.NUGET_PACKAGES || path.join(home, ".nuget", "packages"),
  ];
  return unique(paths);
}

/**
 * Hidden: the sockets of the user's session (an ssh-agent a systemd unit started without
 * SSH_AUTH_SOCK, the D-Bus session bus, systemd's user manager, a rootless Docker or Podman) and
 * the system's Docker socket, which is root on the host.
 */
export function runtimePaths(env: Env, uid: number | undefined = process.getuid?.()): string[] {
  const paths = ["/var/run/docker.sock", "/run/docker.sock", "/var/run/podman/podman.sock", "/run/podman/podman.sock"];
  if (env.XDG_RUNTIME_DIR) paths.push(env.XDG_RUNTIME_DIR);
  if (uid !== undefined) paths.push(`/run/user/${uid}`);
  for (const name of ["DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST"] as const) {
    const socket = unixSocket(env[name]);
    if (socket) paths.push(socket);
  }
  if (env.SSH_AUTH_SOCK) paths.push(env.SSH_AUTH_SOCK);
  return unique(paths);
}

/** `unix:path=/run/user/1000/bus,guid=…` (D-Bus) or `unix:///run/docker.sock` (Docker): the socket's path. */
function unixSocket(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const dbus = /(?:^|;)unix:(?:[^;]*,)?path=([^,;]+)/.exec(address);
  if (dbus?.[1]) return decodeURIComponent(dbus[1]);
  const url = /^unix:\/\/(\/.+)$/.exec(address);
  return url?.[1];
}

function gopath(env: Env, home: string): string {
  // GOPATH may list several folders; go installs into and downloads to the first.
  return env.GOPATH?.split(path.delimiter)[0] || path.join(home, "go");
}

/** The path with its symlinks resolved (its parent's, when it does not exist). */
export function realPath(file: string): string {
  const resolved = path.resolve(file);
  try {
    return fs.realpathSync(resolved);
  } catch {
    try {
      return path.join(fs.realpathSync(path.dirname(resolved)), path.basename(resolved));
    } catch {
      return resolved;
    }
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values.map((p) => path.resolve(p)))];
}
