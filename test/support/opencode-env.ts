import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { testRoot, writeDeveloperHome } from "./dev-home.ts";
import { spawnTracked, stopTracked } from "./processes.ts";

/** The checkout under test: OpenCode loads the plugin from here (`file://<REPO_ROOT>`). */
export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The OpenCode binary pinned in package.json (devDependency `opencode-ai`). */
export const OPENCODE_BIN = path.join(REPO_ROOT, "node_modules", ".bin", "opencode");

export function opencodeVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules", "opencode-ai", "package.json"), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** Per-workspace directories that replace the user's own. */
export interface IsolatedDirs {
  home: string;
  configHome: string;
  dataHome: string;
  cacheHome: string;
  stateHome: string;
}

/** Parent variables worth keeping: locale, time zone, temp dir and where programs are. */
const KEEP = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"];

/**
 * The environment OpenCode runs with: built from an allowlist, never the parent's whole env, so a
 * developer's OPENCODE_*, GITHUB_TOKEN, proxies, GIT_DIR (set inside git hooks) or API keys cannot
 * change what a test sees. `extra` (the test's own variables) wins over everything.
 */
export function isolatedEnv(dirs: IsolatedDirs, cwd: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of KEEP) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return {
    ...env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs.configHome,
    XDG_DATA_HOME: dirs.dataHome,
    XDG_CACHE_HOME: dirs.cacheHome,
    XDG_STATE_HOME: dirs.stateHome,
    // OpenCode resolves the project from $PWD, not from the process cwd.
    PWD: cwd,
    // No update checks, no models.dev download (it would fail offline and only add noise).
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    // JavaScriptCore's top JIT tier: it compiles hot code on other threads, CPU a short-lived test
    // OpenCode never earns back (7 % less CPU for the same files, measured in docs/testing.md). An
    // engine switch only: what OpenCode and otto do is the same with it.
    BUN_JSC_useFTLJIT: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    ...extra,
  };
}

/**
 * The folders of a workspace under `root`. The home is a developer's (dev-home.ts: an identity, a
 * credential helper and a global ignore file in ~/.gitconfig, stored credentials, an ~/.npmrc
 * token, ~/.ssh) unless `bareHome`, for the tests that are about a home with nothing in it.
 */
export function makeDirs(root: string, options: { bareHome?: boolean } = {}): IsolatedDirs {
  const dirs: IsolatedDirs = {
    home: path.join(root, "home"),
    configHome: path.join(root, "xdg", "config"),
    dataHome: path.join(root, "xdg", "data"),
    cacheHome: path.join(root, "xdg", "cache"),
    stateHome: path.join(root, "xdg", "state"),
  };
  for (const dir of Object.values<string>({ ...dirs })) fs.mkdirSync(dir, { recursive: true });
  if (!options.bareHome) writeDeveloperHome(dirs.home);
  return dirs;
}

// ---------------------------------------------------------------------------------------------
// The config-dir template

/**
 * With any plugin configured, OpenCode first npm-installs `@opencode-ai/plugin` into
 * `$XDG_CONFIG_HOME/opencode` (~6 s, needs the registry). That install is done once per OpenCode
 * version into this template; each workspace gets copies of its package files and a symlink to its
 * node_modules, which OpenCode accepts as installed.
 */
export function templateDir(): string {
  return path.join(REPO_ROOT, "node_modules", ".cache", "otto-test", `opencode-config-${opencodeVersion()}`);
}

function templateReady(dir: string): boolean {
  return (
    fs.existsSync(path.join(dir, "node_modules", "@opencode-ai", "plugin", "package.json")) && fs.existsSync(path.join(dir, "package.json"))
  );
}

/** The environment for the one-off install: isolated dirs, but the parent's proxy and npm settings. */
function installEnv(dirs: IsolatedDirs, cwd: string): Record<string, string> {
  const extra: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && /^(https?_proxy|no_proxy|npm_config_registry)$/i.test(key)) extra[key] = value;
  }
  const npmrc = path.join(os.homedir(), ".npmrc");
  if (fs.existsSync(npmrc)) extra.NPM_CONFIG_USERCONFIG = npmrc;
  return isolatedEnv(dirs, cwd, extra);
}

async function buildTemplate(target: string): Promise<void> {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const scratch = fs.mkdtempSync(`${target}.build-`);
  try {
    const dirs = makeDirs(scratch);
    const project = path.join(scratch, "project");
    fs.mkdirSync(project);
    // A do-nothing plugin is enough to make OpenCode install its plugin dependencies.
    fs.writeFileSync(path.join(scratch, "noop-plugin.js"), "export const Noop = async () => ({});\n");
    fs.writeFileSync(path.join(project, "opencode.json"), JSON.stringify({ plugin: [`file://${path.join(scratch, "noop-plugin.js")}`] }));
    const { subprocess, handle } = spawnTracked(OPENCODE_BIN, ["debug", "agent", "build"], {
      cwd: project,
      env: installEnv(dirs, project),
      buffer: true,
    });
    const timer = setTimeout(() => void stopTracked(handle, 0), 180_000);
    const result = await subprocess;
    clearTimeout(timer);
    await stopTracked(handle);
    const installed = path.join(dirs.configHome, "opencode");
    if (!templateReady(installed)) {
      throw new Error(
        `OpenCode did not install its plugin dependencies into ${installed} (exit ${String(result.exitCode)}).\n` +
          `It needs the npm registry once per OpenCode version.\n${String(result.stderr)}`,
      );
    }
    const staged = path.join(scratch, "template");
    fs.mkdirSync(staged);
    for (const name of ["package.json", "package-lock.json", "node_modules"]) {
      if (fs.existsSync(path.join(installed, name))) fs.renameSync(path.join(installed, name), path.join(staged, name));
    }
    try {
      fs.renameSync(staged, target);
    } catch (error) {
      // Another run built it at the same time; theirs is as good as ours.
      if (!templateReady(target)) throw error;
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Removes templates of other OpenCode versions and builds abandoned over an hour ago. */
export function pruneTemplates(): void {
  const current = templateDir();
  const parent = path.dirname(current);
  if (!fs.existsSync(parent)) return;
  for (const name of fs.readdirSync(parent)) {
    const dir = path.join(parent, name);
    if (dir === current || !name.startsWith("opencode-config-")) continue;
    const building = name.includes(".build-");
    if (building && Date.now() - fs.statSync(dir).mtimeMs < 3_600_000) continue;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Returns the template dir, building it when missing. Safe to call from concurrent processes. */
export async function ensureConfigTemplate(): Promise<string> {
  const target = templateDir();
  if (!templateReady(target)) await buildTemplate(target);
  return target;
}

/** Seeds `$XDG_CONFIG_HOME/opencode` so OpenCode finds its plugin dependencies installed. */
export function seedConfigDir(configHome: string, template: string): void {
  const dir = path.join(configHome, "opencode");
  fs.mkdirSync(dir, { recursive: true });
  for (const name of ["package.json", "package-lock.json"]) {
    if (fs.existsSync(path.join(template, name))) fs.copyFileSync(path.join(template, name), path.join(dir, name));
  }
  // A copy would cost ~60 MB per test; OpenCode only reads it.
  fs.symlinkSync(path.join(template, "node_modules"), path.join(dir, "node_modules"), "dir");
}

/** The folder of one `vitest run`'s pooled servers (test/support/e2e.ts), by the pid of its main process. */
export const serversDirOf = (vitestPid: number): string => path.join(testRoot(), `e2e-servers-${vitestPid}`);
