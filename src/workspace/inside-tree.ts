import { constants, type Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/*
 * Otto's own file work on a tree sandboxed code wrote (the restored-checks copy, restoring a
 * session's changes) runs outside the sandbox, with the user's rights. Such a tree may hold a link
 * anywhere (`plug -> ~/.config/opencode/plugin`), and a path that crosses it leads outside: a copy
 * to `plug/evil.js` would write into the user's plugins, a removal would delete there. So every
 * component of a path is looked at with lstat, from the tree's root down, and a link is never
 * followed: a read stops, a write replaces the link by a folder (what the tree it mirrors has
 * there), and the last step opens or creates with O_NOFOLLOW / O_EXCL.
 */

// Windows has no O_NOFOLLOW; otto's sandbox runs on Linux and macOS, where it is defined.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

const parts = (rel: string): string[] => rel.split(/[\\/]+/).filter((p) => p !== "" && p !== ".");

/**
 * lstat of `root/rel` when every folder on the way is a real folder (no link, no `..`); undefined
 * when something is absent or a link is on the way. The last component itself is not followed.
 */
export async function lstatInside(root: string, rel: string): Promise<Stats | undefined> {
  const steps = parts(rel);
  if (steps.length === 0 || steps.includes("..")) return undefined;
  let at = root;
  for (const [i, step] of steps.entries()) {
    at = path.join(at, step);
    const stat = await fs.lstat(at).catch(() => undefined);
    if (!stat) return undefined;
    if (i === steps.length - 1) return stat;
    if (!stat.isDirectory()) return undefined;
  }
  return undefined;
}

/**
 * Makes the folders of `rel`'s parent under `root`, each a real folder: a link or a file in the
 * way is removed (the link itself, never its target) and a folder made in its place. Returns the
 * parent's absolute path. Throws on `..`.
 */
export async function makeParentsInside(root: string, rel: string): Promise<string> {
  const steps = parts(rel).slice(0, -1);
  if (steps.includes("..")) throw new Error(`${rel} leaves ${root}`);
  let at = root;
  for (const step of steps) {
    at = path.join(at, step);
    const stat = await fs.lstat(at).catch(() => undefined);
    if (stat?.isDirectory()) continue;
    if (stat) await fs.rm(at, { force: true });
    await fs.mkdir(at);
  }
  return at;
}

/** Removes what is at `root/rel` (a file or a link, never a folder) when nothing on the way is a link. */
export async function removeInside(root: string, rel: string): Promise<void> {
  const stat = await lstatInside(root, rel);
  if (!stat || stat.isDirectory()) return;
  await fs.rm(path.join(root, ...parts(rel)), { force: true });
}

/**
 * Copies the regular file or link at `from/rel` to `to/rel`, replacing what is there (a folder is
 * left alone: false); nothing on the way is followed on either side. False when the source is not
 * a file or link reached without a link, or the target is a folder.
 */
export async function copyInside(from: string, to: string, rel: string): Promise<boolean> {
  const stat = await lstatInside(from, rel);
  if (!stat || !(stat.isFile() || stat.isSymbolicLink())) return false;
  const source = path.join(from, ...parts(rel));
  await makeParentsInside(to, rel);
  const target = path.join(to, ...parts(rel));
  if ((await fs.lstat(target).catch(() => undefined))?.isDirectory()) return false;
  await fs.rm(target, { force: true });
  if (stat.isSymbolicLink()) {
    // A link is copied as a link (its text), as git would check it out; nothing reads through it.
    await fs.symlink(await fs.readlink(source), target);
    return true;
  }
  // O_NONBLOCK: a FIFO put there since the lstat does not hang the open.
  const input = await fs.open(source, constants.O_RDONLY | NOFOLLOW | constants.O_NONBLOCK);
  try {
    const opened = await input.stat();
    if (!opened.isFile()) return false;
    // wx: O_CREAT|O_EXCL, so a link that appeared at the target is an error, not a way out.
    await fs.writeFile(target, await input.readFile(), { flag: "wx", mode: opened.mode & 0o777 });
    await fs.chmod(target, opened.mode & 0o777);
  } finally {
    await input.close();
  }
  return true;
}
