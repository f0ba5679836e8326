import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { REPO_ROOT } from "./opencode-env.ts";

/*
 * The package as it is published: `npm pack` of the checkout, and installs of the tarball. Used by
 * the package e2e test and the install-size bench.
 */

export interface PackedFile {
  path: string;
  size: number;
}

export interface Packed {
  /** The .tgz (undefined for a dry run). */
  tarball?: string;
  /** Every file in the tarball, relative to the package root. */
  files: PackedFile[];
  /** Bytes of the unpacked files. */
  unpackedSize: number;
}

/**
 * The npm settings of the developer's own environment that an install needs to reach the registry
 * (proxies, registry, ~/.npmrc) and to reuse the npm cache instead of downloading every package
 * again. Nothing else of the parent's environment.
 */
export function npmEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && /^(https?_proxy|no_proxy|npm_config_registry)$/i.test(key)) env[key] = value;
  }
  const npmrc = path.join(os.homedir(), ".npmrc");
  if (fs.existsSync(npmrc)) env.NPM_CONFIG_USERCONFIG = npmrc;
  env.npm_config_cache = process.env.npm_config_cache ?? path.join(os.homedir(), ".npm");
  // Packages already in the cache are not fetched again: offline when the checkout's `npm ci` ran.
  env.npm_config_prefer_offline = "true";
  env.npm_config_audit = "false";
  env.npm_config_fund = "false";
  env.npm_config_update_notifier = "false";
  return env;
}

async function npm(args: string[], cwd: string, timeoutMs = 300_000): Promise<string> {
  const result = await execa("npm", args, { cwd, env: { ...process.env, ...npmEnv() }, reject: false, timeout: timeoutMs });
  if (result.exitCode !== 0) throw new Error(`npm ${args.join(" ")} failed in ${cwd} (exit ${String(result.exitCode)}):\n${result.stderr}`);
  return result.stdout;
}

/** The version of the npm that packs and installs. */
export async function npmVersion(): Promise<string> {
  return (await npm(["--version"], REPO_ROOT)).trim();
}

/** `npm pack` of the checkout into `destination`, or a dry run (the file list only) without one. */
export async function packPackage(destination?: string): Promise<Packed> {
  const args = destination ? ["pack", "--json", "--pack-destination", destination] : ["pack", "--json", "--dry-run"];
  const [result] = JSON.parse(await npm(args, REPO_ROOT)) as Array<{ filename: string; files: PackedFile[]; unpackedSize: number }>;
  if (!result) throw new Error("npm pack printed no result");
  return {
    ...(destination ? { tarball: path.join(destination, result.filename) } : {}),
    files: result.files.map((f) => ({ path: f.path, size: f.size })),
    unpackedSize: result.unpackedSize,
  };
}

/**
 * A user's production install of `tarball` into `dir` (a fresh project): dependencies only, no
 * install scripts, as OpenCode installs a plugin (its npm runs with ignoreScripts).
 */
export async function installTarball(tarball: string, dir: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: "otto-install", private: true }, null, 2)}\n`);
  await npm(["install", "--omit=dev", "--ignore-scripts", "--no-package-lock", tarball], dir);
}
