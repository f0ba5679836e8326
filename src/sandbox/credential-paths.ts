import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";
import { toolchainPaths } from "./home.ts";

/*
 * Where the user's credentials live, from the environment: files and folders hidden from every
 * sandboxed command and refused to OpenCode's file tools in an otto session.
 */

/**
 * The credential stores a session has no business reading, from the user's environment. Missing
 * ones are skipped when the sandbox is built. OpenCode's auth.json holds the model providers' keys.
 */
export function credentialPaths(env: Env): string[] {
  const { home, config, data, ottoConfigDir, ottoDataDir } = xdgPaths(env);
  const cargo = env.CARGO_HOME || path.join(home, ".cargo");
  const paths = [
    path.join(home, ".ssh"),
    path.join(home, ".gnupg"),
    path.join(home, ".git-credentials"),
    path.join(config, "git", "credentials"),
    path.join(home, ".netrc"),
    path.join(home, ".npmrc"),
    path.join(home, ".yarnrc.yml"),
    path.join(home, ".pypirc"),
    path.join(home, ".docker", "config.json"),
    path.join(home, ".aws"),
    path.join(home, ".azure"),
    path.join(home, ".kube"),
    path.join(config, "gh"),
    path.join(config, "hub"),
    path.join(config, "gcloud"),
    ottoConfigDir,
    ottoDataDir,
    path.join(data, "opencode", "auth.json"),
    path.join(data, "opencode", "mcp-auth.json"),
    // Toolchains' and package managers' credential files. Some sit inside a folder shown read-only
    // (home.ts toolchainPaths: `~/.gem`, uv's data folder), the rest beside a store or in the home.
    path.join(home, ".gem", "credentials"),
    path.join(data, "gem", "credentials"),
    path.join(data, "uv", "credentials"),
    path.join(config, "pypoetry", "auth.toml"),
    path.join(home, ".yarnrc"),
    path.join(cargo, "credentials"),
    path.join(cargo, "credentials.toml"),
    path.join(home, ".m2", "settings.xml"),
    path.join(home, ".m2", "settings-security.xml"),
    path.join(env.GRADLE_USER_HOME || path.join(home, ".gradle"), "gradle.properties"),
    path.join(home, ".nuget", "NuGet", "NuGet.Config"),
    path.join(config, "NuGet", "NuGet.Config"),
    path.join(home, ".terraform.d", "credentials.tfrc.json"),
    path.join(config, "containers", "auth.json"),
    ...toolchainConfigs(toolchainPaths(env)),
  ];
  if (env.GH_CONFIG_DIR) paths.push(env.GH_CONFIG_DIR);
  if (env.AZURE_CONFIG_DIR) paths.push(env.AZURE_CONFIG_DIR);
  if (env.NPM_CONFIG_USERCONFIG) paths.push(env.NPM_CONFIG_USERCONFIG);
  if (env.SSH_AUTH_SOCK) paths.push(env.SSH_AUTH_SOCK);
  return [...new Set(paths.map((p) => path.resolve(p)))];
}

/**
 * Settings files that hold a registry's or package index's token: `npm config set --global` writes
 * the running node's `<prefix>/etc/npmrc`, `pip config set --site` a Python's `<prefix>/pip.conf`,
 * conda its install's `.condarc`.
 */
const TOOLCHAIN_CONFIGS = new Set(["npmrc", ".npmrc", "pip.conf", "pip.ini", ".condarc", "condarc"]);

/** An install's folders of programs, libraries and sources: none holds those settings, and they are most of its folders. */
const INSTALL_CONTENT = new Set([
  "bin",
  "lib",
  "lib64",
  "libexec",
  "include",
  "share",
  "man",
  "src",
  "pkg",
  "pkgs",
  "node_modules",
  "site-packages",
  ".git",
]);

/** Deep enough for every version manager's installs: Volta's `tools/image/node/<version>/etc/npmrc`. */
const CONFIG_DEPTH = 5;

/**
 * Those settings files anywhere in the toolchain folders shown read-only (home.ts), whatever the
 * version manager (nvm, fnm, mise, asdf, nodenv, Volta, pyenv): each folder is walked to
 * CONFIG_DEPTH, without following links and without entering an install's content folders, which
 * keeps it to a few hundred folder reads for a home with many installs.
 */
function toolchainConfigs(roots: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const at = path.join(dir, entry.name);
      if (!entry.isDirectory()) {
        if (TOOLCHAIN_CONFIGS.has(entry.name)) found.push(at);
      } else if (depth < CONFIG_DEPTH && !INSTALL_CONTENT.has(entry.name)) walk(at, depth + 1);
    }
  };
  for (const root of roots) walk(root, 0);
  return found;
}
