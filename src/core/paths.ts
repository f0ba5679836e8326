import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The package root (holds prompts/, agents/, commands/), whether loaded from src/ or a published copy. */
export const PACKAGE_ROOT = fileURLToPath(new URL("../..", import.meta.url));

export type Env = Record<string, string | undefined>;

/** XDG base directories, read from the given environment so tests can isolate them. */
export function xdgPaths(env: Env = process.env) {
  const home = env.HOME ?? os.homedir();
  const config = env.XDG_CONFIG_HOME || path.join(home, ".config");
  const data = env.XDG_DATA_HOME || path.join(home, ".local", "share");
  const cache = env.XDG_CACHE_HOME || path.join(home, ".cache");
  return {
    home,
    config,
    data,
    cache,
    /** $XDG_CONFIG_HOME/otto */
    ottoConfigDir: path.join(config, "otto"),
    /** $XDG_DATA_HOME/otto */
    ottoDataDir: path.join(data, "otto"),
  };
}
