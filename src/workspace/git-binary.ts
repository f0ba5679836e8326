import fs from "node:fs";
import path from "node:path";
import type { Env } from "../core/index.ts";
import { within } from "../sandbox/index.ts";

/*
 * Which git otto runs outside the sandbox. A PATH entry inside a tree sandboxed code may write (an
 * activated `.venv/bin`, direnv's `PATH_add bin`) would let that code plant `git` and have otto run
 * it with the user's credentials. So otto looks git up itself, on a PATH without relative entries
 * and without entries inside the tree it works in, and runs it by absolute path. (Inside the
 * sandbox those entries are read-only: sandbox/policy.ts.)
 */

const found = new Map<string, string>();

/** The absolute path of `name` on `env.PATH`, skipping entries inside `tree`; `name` itself when none has it. */
export function gitBinary(env: Env, tree: string | undefined, name = "git"): string {
  if (name.includes("/")) return name;
  const key = [env.PATH ?? "", tree ?? "", name].join("\0");
  const cached = found.get(key);
  if (cached && executable(cached)) return cached;
  const real = (p: string): string => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const root = tree ? real(tree) : undefined;
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    if (root && (within(path.resolve(dir), root) || within(real(dir), root))) continue;
    const file = path.join(dir, name);
    if (!executable(file)) continue;
    found.set(key, file);
    return file;
  }
  return name;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
