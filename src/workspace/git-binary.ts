import path from "node:path";
import type { Env } from "../core/index.ts";
import { onPath, realPath, within } from "../sandbox/index.ts";

/*
 * Which git otto runs outside the sandbox. A PATH entry inside a tree sandboxed code may write (an
 * activated `.venv/bin`, direnv's `PATH_add bin`) would let that code plant `git` and have otto run
 * it with the user's credentials. So otto looks git up itself, on a PATH without relative entries
 * and without entries inside the tree it works in, and runs it by absolute path. (Inside the
 * sandbox those entries are read-only: sandbox/policy.ts.)
 */

/** The absolute path of `name` on `env.PATH`, skipping entries inside `tree`; `name` itself when none has it. */
export function gitBinary(env: Env, tree: string | undefined, name = "git"): string {
  if (name.includes("/")) return name;
  const root = tree ? realPath(tree) : undefined;
  const outside = (env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => path.isAbsolute(dir) && !(root && (within(path.resolve(dir), root) || within(realPath(dir), root))));
  return onPath(name, outside.join(path.delimiter)) ?? name;
}
