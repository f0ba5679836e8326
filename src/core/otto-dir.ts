import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { OttoError } from "./errors.ts";

/*
 * A repository's `.otto` folder (specs, crew, build loops, otto.jsonc) comes with its checkout, so
 * a PR or a session can commit it as a symlink: `.otto -> ~`, `.otto/specs/x -> ~/.ssh`, or a
 * spec file linked to `~/.bashrc`. Otto writes and deletes there without asking, so every write
 * and delete under a `.otto` folder passes this check first: `.otto` itself is no symlink, and no
 * component between it and the file (the file included) is a symlink that leads out of the
 * repository or nowhere. A link that stays inside the repository is allowed.
 */

const OTTO_DIR = ".otto";

/** The repository root of a path under a `.otto` folder (the last such segment), or undefined. */
export function ottoRootOf(target: string): string | undefined {
  const parts = path.resolve(target).split(path.sep);
  const at = parts.lastIndexOf(OTTO_DIR);
  if (at <= 0) return undefined;
  return parts.slice(0, at).join(path.sep) || path.sep;
}

const inside = (root: string, p: string): boolean => {
  const rel = path.relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

async function lstatIfExists(p: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(p);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw error;
  }
}

function refused(what: string, root: string): OttoError {
  return new OttoError(
    "otto_dir_symlink",
    `${what}, so otto does not write or delete there: a checkout's .otto folder must be a real folder inside ${root}.`,
    `Replace the symlink with a real folder or file (git rm the link if a commit brought it, then run the command again).`,
  );
}

/**
 * Throws `otto_dir_symlink` when writing or deleting `target` would leave the repository through
 * a symlink (see above). Paths outside any `.otto` folder pass unchecked.
 */
export async function assertOttoPathSafe(target: string): Promise<void> {
  const root = ottoRootOf(target);
  if (root === undefined) return;
  const realRoot = await fs.realpath(root).catch(() => root);
  const ottoDir = path.join(root, OTTO_DIR);
  const rest = path
    .relative(ottoDir, path.resolve(target))
    .split(path.sep)
    .filter((s) => s !== "" && s !== ".");
  let current = ottoDir;
  for (let i = -1; i < rest.length; i++) {
    if (i >= 0) current = path.join(current, rest[i] ?? "");
    const stat = await lstatIfExists(current);
    if (!stat) return;
    if (!stat.isSymbolicLink()) continue;
    const shown = path.relative(root, current);
    if (i < 0) throw refused(`${shown} is a symlink`, root);
    const real = await fs.realpath(current).catch(() => undefined);
    if (real === undefined) throw refused(`${shown} is a symlink that leads nowhere`, root);
    if (!inside(realRoot, real)) throw refused(`${shown} is a symlink to ${real}, outside the repository`, root);
  }
}
