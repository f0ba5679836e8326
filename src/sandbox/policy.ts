import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";
import { realPath, runtimePaths, storePaths, toolchainPaths } from "./home.ts";
import { configViews } from "./git-config-view.ts";
import { credentialPaths } from "./credential-paths.ts";
import { inTreeControls } from "./in-tree-controls.ts";
import { findSecretFiles } from "./secret-files.ts";

/*
 * What a sandboxed command may touch. The rule: the code of otto's work (a session's shell
 * command, a check otto runs on a tree a session touched, a hook) may write its work tree, a
 * private temp folder and the package stores, and read the system and the toolchains; it sees an
 * empty home, no socket of the user's session, none of the user's secret files in the tree, and it
 * cannot write the files that decide what git runs. The credential stores otto knows are hidden
 * as well (a second layer: some live outside the home, and macOS cannot mount an empty home).
 * Network stays open by default (installs need it): no credential is left to use on it.
 */

/** Where a command runs: its tree and the git directories behind it (a worktree has two). */
export interface TreePaths {
  /** The work tree's top level (or the directory itself outside git). */
  root: string;
  /** `git rev-parse --absolute-git-dir` and `--git-common-dir`, deduplicated; empty outside git. */
  gitDirs: readonly string[];
  /**
   * The common git directory of otto's own temporary worktree, which it shares with the user's
   * checkout: its refs, packed-refs, HEAD, index and logs are shown read-only (HEAD and index from any linked worktree).
   */
  sharedCommon?: string;
}

/** otto.jsonc `sandbox_access`: what the user lets the sandbox reach beyond the defaults. */
export interface SandboxAccess {
  /** `none`: no network inside (loopback only). */
  network: "open" | "none";
  /** Shown read-only (`~` already expanded; relative paths are the tree's). */
  allow_read: readonly string[];
  /** Shown writable. */
  allow_write: readonly string[];
  /** The host's loopback ports a command may reach with `network: open` (a local database); none by default. */
  allow_ports?: readonly number[];
}

export const DEFAULT_ACCESS: SandboxAccess = { network: "open", allow_read: [], allow_write: [], allow_ports: [] };

export interface SandboxPolicy {
  /** The directory the command starts in. */
  cwd: string;
  /** Writable: the tree and its git directories (objects, refs, index). */
  tree: string[];
  /** An empty folder replaces the user's home; undefined when the home is `/` or lies in a private temp folder. */
  home?: string | undefined;
  /** Read-only on top of the empty home: the toolchains. */
  toolchains: string[];
  /** Writable: the package stores. */
  caches: string[];
  /** otto.jsonc `sandbox_access.allow_read`: read-only, even inside a hidden folder. */
  allowRead: string[];
  /** otto.jsonc `sandbox_access.allow_write`: writable, even inside a hidden folder. */
  allowWrite: string[];
  /**
   * Read-only although inside a writable folder: git's config, hooks, info, commondir, gitdir and
   * modules of every git directory, a linked worktree's `.git` file, and the tree's folders whose
   * programs run later outside (an in-tree core.hooksPath, PATH entries inside the tree).
   */
  readOnly: string[];
  /**
   * Invisible: credential stores, otto's own config and data, OpenCode's provider keys, the
   * session's sockets, the user's secret files in the tree.
   */
  hidden: string[];
  /** Folders replaced by an empty private one (the system's temp folders). */
  privateTemp: string[];
  /**
   * The system's runtime folders (`/run`, and `/var/run` where it is not a link to it), replaced
   * by an empty one: they hold the sockets of every local service (PostgreSQL, MySQL, containerd,
   * libvirt, the system bus), which a unix socket reaches whatever the network namespace.
   */
  emptyRun: string[];
  /** Kept in the empty runtime folders: their top-level links, name resolution's folder, PATH entries. */
  runKeep: Array<{ path: string; link?: string }>;
  /** `none`: a network namespace of its own (bubblewrap), network denied (Seatbelt). `open`: the internet, not the host (net.ts). */
  network: SandboxAccess["network"];
  /** With `open`: the host's loopback ports the command may reach. */
  ports: number[];
  /** The user's git settings (git-settings.ts): a file on the host shown read-only as `gitConfigAt`. */
  gitConfig?: string | undefined;
  /** Where git inside looks for its global configuration: `~/.gitconfig` of the home the sandbox shows. */
  gitConfigAt?: string | undefined;
  /** Read-only: the files the user's git settings name (the global ignore and attributes files). */
  gitFiles: string[];
  /** Git directories' config files that hold a credential, each shown as a copy without it (git-config-view.ts). */
  configViews: Array<{ copy: string; file: string }>;
}

/**
 * The policy for a command started in `cwd` inside `tree`. Paths are resolved to their real
 * location: bubblewrap mounts on real paths only (it cannot create a mount point through a
 * symlink, and `/var/run` is one), and comparing them needs one spelling.
 */
export function sandboxPolicy(input: {
  cwd: string;
  tree: TreePaths;
  env: Env;
  access?: SandboxAccess;
  /** The user's git settings as a file (git-settings.ts) and the files they name. */
  git?: { file: string; files: readonly string[] };
}): SandboxPolicy {
  const { cwd, tree, env } = input;
  const access = input.access ?? DEFAULT_ACCESS;
  const { home, ottoConfigDir, ottoDataDir } = xdgPaths(env);
  const real = (paths: readonly string[]) => unique(paths.map(realPath));
  const temp = real(["/tmp", "/var/tmp", ...(env.TMPDIR ? [env.TMPDIR] : [])]);
  const root = realPath(tree.root);
  const gitDirs = real(tree.gitDirs);
  const own = unique([root, ...gitDirs]);
  // What decides where git looks (commondir, gitdir, a linked worktree's .git file) and what it runs.
  const dotGit = path.join(root, ".git");
  const readOnly = [
    ...gitDirs.flatMap((dir) =>
      ["config", "config.worktree", "hooks", "info", "commondir", "gitdir", "modules"].map((name) => path.join(dir, name)),
    ),
    ...(gitDirs.length > 0 && !own.includes(dotGit) ? [dotGit] : []),
    // The user's other linked worktrees' git directories, and the folder that holds them (renamed, it
    // could be rebuilt with a commondir of the sandbox's): the command's own one is writable again
    // inside it (bwrap.ts, seatbelt.ts).
    ...worktreesFolder(gitDirs, tree.sharedCommon),
    // From a linked worktree: the main checkout's index and HEAD, which its next commit takes as
    // they are. The refs stay writable (the session's commits move its branch, kept in the common
    // directory; control-watch puts back the other branches and tags it moved), but for otto's
    // temporary worktree, which commits nothing there.
    ...gitDirs.slice(1).flatMap((common) => ["HEAD", "index"].map((name) => path.join(common, name))),
    // OpenCode configuration the tree already has: what the next OpenCode start loads stays as it was.
    ...[".opencode", "opencode.json", "opencode.jsonc"].map((name) => path.join(root, name)),
    // Hook managers' configuration: the body of the hook they installed, run by the user's next commit.
    ...HOOK_MANAGER_CONFIG.map((name) => path.join(root, name)),
    ...(tree.sharedCommon ? ["refs", "packed-refs", "logs"].map((name) => path.join(realPath(tree.sharedCommon ?? ""), name)) : []),
  ];
  // otto's own folders (the launcher, the watcher's password) stay hidden whatever the lists allow.
  const otto = real([ottoConfigDir, ottoDataDir]);
  const allowed = (list: readonly string[]) => real(list.map((p) => path.resolve(root, p))).filter((p) => !otto.some((o) => within(p, o)));
  const allowRead = allowed(access.allow_read);
  const allowWrite = allowed(access.allow_write);
  const allowedPaths = [...allowRead, ...allowWrite];
  const secretFiles = findSecretFiles(root, gitDirs[0] ? path.join(gitDirs[0], "index") : undefined);
  const hidden = real([...credentialPaths(env), ...runtimePaths(env), ...secretFiles]).filter(
    (h) => otto.includes(h) || !allowedPaths.some((a) => within(h, a)),
  );
  const homeDir = realPath(home);
  const hideHome = homeDir !== "/" && !temp.some((t) => within(homeDir, t));
  return {
    cwd: path.resolve(cwd),
    tree: own,
    home: hideHome ? homeDir : undefined,
    toolchains: real(toolchainPaths(env)).filter((p) => !own.includes(p)),
    caches: real(storePaths(env)).filter((c) => !own.includes(c)),
    allowRead,
    allowWrite,
    readOnly: unique([...readOnly, ...inTreeControls(root, gitDirs, env, input.git?.file, allowWrite)]),
    hidden,
    privateTemp: temp,
    ...runtimeFolders(env),
    network: access.network,
    ports: [...(access.allow_ports ?? [])],
    gitConfig: input.git && homeDir !== "/" ? input.git.file : undefined,
    gitConfigAt: input.git && homeDir !== "/" ? path.join(homeDir, ".gitconfig") : undefined,
    gitFiles: real([...(input.git?.files ?? [])]),
    configViews: configViews(gitDirs, env, [...own, ...allowWrite]),
  };
}

/**
 * `/run` and `/var/run` as the sandbox shows them: empty, but for their top-level links (NixOS's
 * `/run/current-system`, `/run/shm`), the folder `/etc/resolv.conf` leads to
 * (`/run/systemd/resolve`) and the folders of PATH entries under them (`/run/wrappers/bin`).
 */
function runtimeFolders(env: Env): Pick<SandboxPolicy, "emptyRun" | "runKeep"> {
  const emptyRun = unique(["/run", "/var/run"].map(realPath)).filter((dir) => isDir(dir));
  const runKeep: SandboxPolicy["runKeep"] = [];
  const under = (p: string): string | undefined => emptyRun.find((dir) => p !== dir && within(p, dir));
  for (const dir of emptyRun) {
    for (const name of safeList(dir)) {
      const at = path.join(dir, name);
      try {
        if (fs.lstatSync(at).isSymbolicLink()) runKeep.push({ path: at, link: fs.readlinkSync(at) });
      } catch {
        // Gone meanwhile: nothing to keep.
      }
    }
  }
  const resolv = realPath("/etc/resolv.conf");
  const folders = [...(under(resolv) ? [path.dirname(resolv)] : []), ...(env.PATH ?? "").split(":").filter((p) => path.isAbsolute(p))];
  for (const folder of folders) {
    const real = realPath(folder);
    if (under(real) && isDir(real) && !runKeep.some((k) => k.path === real)) runKeep.push({ path: real });
  }
  return { emptyRun, runKeep };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Hook managers' configuration files at a tree's top (pre-commit, lefthook): what their installed hooks run. */
export const HOOK_MANAGER_CONFIG = [
  ".pre-commit-config.yaml",
  "lefthook.yml",
  "lefthook.yaml",
  ".lefthook.yml",
  ".lefthook.yaml",
  "lefthook-local.yml",
  "lefthook-local.yaml",
  ".lefthook-local.yml",
  ".lefthook-local.yaml",
];

/** `<common>/worktrees` as a whole, where it exists (a new linked worktree is otto's own `git worktree add`, outside). */
function worktreesFolder(gitDirs: readonly string[], sharedCommon: string | undefined): string[] {
  const common = sharedCommon ? realPath(sharedCommon) : gitDirs.at(-1);
  return common && isDir(path.join(common, "worktrees")) ? [path.join(common, "worktrees")] : [];
}

/** True when `inner` is `outer` or lies inside it (a folder inside named `..x` included: only `..` itself leads out). */
export function within(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
