import fs from "node:fs";
import { within, type SandboxPolicy } from "./policy.ts";

/** What the builder needs to know of a path on the host: missing paths are left out. */
export type PathKind = "dir" | "file" | "missing";

export function pathKind(file: string): PathKind {
  try {
    return fs.statSync(file).isDirectory() ? "dir" : "file";
  } catch {
    return "missing";
  }
}

/**
 * bubblewrap's arguments for a policy (bwrap(1)). The order is the point, since every mount lands
 * on top of the ones before it:
 *
 * 1. the whole system read-only, a fresh /dev, and a /proc of a new PID namespace, so the
 *    command sees none of the user's other processes (nor their environments in /proc/<pid>/environ);
 * 2. empty private temp folders (a bare remote or another job's files in /tmp are out of reach);
 * 3. the package caches writable;
 * 4. hidden folders that contain the tree (a worktree under otto's data folder) before the tree;
 * 5. the tree and its git directories writable;
 * 6. git's config, hooks and info read-only on top of them;
 * 7. the other credential stores hidden last, so a tree that contains one (a dotfiles repository
 *    in $HOME) does not show it again. A folder becomes an empty tmpfs, a file /dev/null.
 */
export function bwrapArgs(policy: SandboxPolicy, kind: (file: string) => PathKind = pathKind): string[] {
  const args = ["--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  const hide = (p: string): void => {
    const k = kind(p);
    if (k === "dir") args.push("--tmpfs", p);
    else if (k === "file") args.push("--ro-bind", "/dev/null", p);
  };
  const inTemp = (p: string): boolean => policy.privateTemp.some((t) => within(p, t));
  for (const temp of policy.privateTemp) if (kind(temp) === "dir") args.push("--tmpfs", temp);
  const tree = policy.tree;
  for (const cache of policy.caches) {
    if (kind(cache) === "dir" && !inTemp(cache) && !policy.hidden.some((h) => within(cache, h))) args.push("--bind", cache, cache);
  }
  const containsTree = (h: string): boolean => tree.some((t) => within(t, h));
  for (const hidden of policy.hidden.filter(containsTree)) if (!inTemp(hidden)) hide(hidden);
  for (const dir of tree) if (kind(dir) !== "missing") args.push("--bind", dir, dir);
  for (const file of policy.readOnly) if (kind(file) !== "missing") args.push("--ro-bind", file, file);
  for (const hidden of policy.hidden.filter((h) => !containsTree(h))) {
    // Under a private temp folder it is already out of sight (and no longer exists to mount on).
    if (!inTemp(hidden) || tree.some((t) => within(hidden, t))) hide(hidden);
  }
  args.push("--chdir", policy.cwd);
  return args;
}
