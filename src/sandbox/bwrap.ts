import fs from "node:fs";
import { within, type SandboxPolicy } from "./policy.ts";
import type { StoreLayer } from "./store-layer.ts";

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
 *    with `network: none`, a network namespace of its own (loopback only);
 * 2. empty private temp folders (a bare remote or another job's files in /tmp are out of reach),
 *    and an empty `/run` (every local service's socket) with its links, name resolution's folder
 *    and PATH entries kept;
 * 3. an empty home;
 * 4. hidden folders that contain the tree or an allowed path (a worktree under otto's data
 *    folder) before what is bound into them;
 * 5. the toolchains read-only, the user's git settings as `~/.gitconfig` (and the ignore and
 *    attributes files they name) read-only, then each package store with a writable layer of the
 *    run's own (`store`: the store under a tmpfs overlay, or an empty tmpfs; store-layer.ts), so
 *    nothing a run writes there reaches a later build outside, then the user's `allow_read` and
 *    `allow_write`;
 * 6. the tree and its git directories writable;
 * 7. git's config, hooks and info read-only on top of them (a config file holding a credential
 *    shown as a copy without it), `<common>/worktrees` as a whole, then the tree's own git
 *    directory inside it writable again with its controls read-only on top;
 * 8. the other hidden paths last (credential stores, the session's sockets, secret files in the
 *    tree), so a tree or store that contains one (a dotfiles repository in $HOME) does not show it
 *    again. A folder becomes an empty tmpfs, a file (or socket) /dev/null.
 */
export function bwrapArgs(policy: SandboxPolicy, kind: (file: string) => PathKind = pathKind, store: StoreLayer = "empty"): string[] {
  const args = ["--die-with-parent", "--unshare-pid"];
  if (policy.network === "none") args.push("--unshare-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  const hide = (p: string): void => {
    const k = kind(p);
    if (k === "dir") args.push("--tmpfs", p);
    else if (k === "file") args.push("--ro-bind", "/dev/null", p);
  };
  const inTemp = (p: string): boolean => policy.privateTemp.some((t) => within(p, t));
  const inHidden = (p: string): boolean => policy.hidden.some((h) => within(p, h));
  for (const temp of policy.privateTemp) if (kind(temp) === "dir") args.push("--tmpfs", temp);
  for (const dir of policy.emptyRun) args.push("--tmpfs", dir);
  // Host paths shown at their own place by a mount: a config view may go over a file in one.
  const shown: string[] = [];
  for (const keep of policy.runKeep) {
    if (keep.link !== undefined) args.push("--symlink", keep.link, keep.path);
    else if (kind(keep.path) !== "missing") {
      args.push("--ro-bind", keep.path, keep.path);
      shown.push(keep.path);
    }
  }
  if (policy.home && kind(policy.home) === "dir") args.push("--tmpfs", policy.home);
  const tree = policy.tree;
  const containsBound = (h: string): boolean => [...tree, ...policy.allowRead, ...policy.allowWrite].some((t) => within(t, h));
  for (const hidden of policy.hidden.filter(containsBound)) if (!inTemp(hidden)) hide(hidden);
  const mount = (flag: string, dirs: readonly string[]) => {
    for (const dir of dirs)
      if (kind(dir) === "dir" && !inTemp(dir) && !inHidden(dir)) {
        args.push(flag, dir, dir);
        shown.push(dir);
      }
  };
  mount("--ro-bind", policy.toolchains);
  // The user's git settings as the home's ~/.gitconfig, and the ignore and attributes files they name.
  if (policy.gitConfig && policy.gitConfigAt && kind(policy.gitConfig) === "file")
    args.push("--ro-bind", policy.gitConfig, policy.gitConfigAt);
  for (const file of policy.gitFiles) if (kind(file) === "file" && !inHidden(file)) args.push("--ro-bind", file, file);
  for (const dir of policy.caches) {
    if (kind(dir) !== "dir" || inTemp(dir) || inHidden(dir)) continue;
    if (store === "overlay") {
      args.push("--overlay-src", dir, "--tmp-overlay", dir);
      shown.push(dir);
    } else args.push("--tmpfs", dir);
  }
  const show = (flag: string, p: string): void => {
    if (kind(p) === "missing") return;
    args.push(flag, p, p);
    shown.push(p);
  };
  // The user named these: shown even inside a hidden folder (hidden before, step 4).
  for (const p of policy.allowRead) show("--ro-bind", p);
  for (const p of policy.allowWrite) show("--bind", p);
  for (const dir of tree) show("--bind", dir);
  const readOnly = (files: readonly string[]): void => {
    for (const file of files) {
      if (kind(file) === "missing") continue;
      // A config file that holds a credential is shown as its copy without it.
      const view = policy.configViews.find((v) => v.file === file);
      args.push("--ro-bind", view?.copy ?? file, file);
    }
  };
  readOnly(policy.readOnly);
  // A git directory of the tree inside a read-only folder (a linked worktree's own in `<common>/worktrees`): writable again, its controls on top.
  const reopened = tree.filter((dir) => policy.readOnly.some((r) => r !== dir && within(dir, r)));
  for (const dir of reopened) if (kind(dir) !== "missing") args.push("--bind", dir, dir);
  readOnly(policy.readOnly.filter((file) => reopened.some((dir) => within(file, dir))));
  const bound = [...tree, ...policy.toolchains, ...policy.caches, ...policy.allowRead, ...policy.allowWrite];
  const inHome = (p: string): boolean => policy.home !== undefined && within(p, policy.home);
  // Where the host's file is shown as it is: hidden last (step 8) nowhere; in a folder mounted at its own place; else
  // where no empty folder (the temp folders, /run, the home, a hidden folder) went over it.
  const shows = (p: string): boolean =>
    !policy.hidden.some((h) => !containsBound(h) && within(p, h)) &&
    (shown.some((s) => within(p, s)) ||
      (![...policy.privateTemp, ...policy.emptyRun, ...policy.hidden].some((d) => within(p, d)) && !inHome(p)));
  // Files a git config includes (actions/checkout's credentials file) that hold a credential: their copies without it,
  // only where the file itself is shown. A copy is the file's other keys too: bound in the empty home or over a hidden
  // path it would show what the sandbox hides (a tree's config that includes ~/.gitconfig or ~/.npmrc).
  for (const view of policy.configViews) {
    if (!policy.readOnly.includes(view.file) && kind(view.file) === "file" && shows(view.file))
      args.push("--ro-bind", view.copy, view.file);
  }
  for (const hidden of policy.hidden.filter((h) => !containsBound(h))) {
    // Under a private temp folder or the empty home it is already out of sight, unless a bound folder shows it again.
    if ((!inTemp(hidden) && !inHome(hidden)) || bound.some((b) => within(hidden, b))) hide(hidden);
  }
  args.push("--chdir", policy.cwd);
  return args;
}
