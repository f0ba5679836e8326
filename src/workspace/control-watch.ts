import fs from "node:fs";
import path from "node:path";
import { xdgPaths, type Env } from "../core/index.ts";
import { HOOK_MANAGER_CONFIG, indexStamp, readIndexGitlinks, type TreePaths } from "../sandbox/index.ts";
import { moveOut, type Quarantined } from "./quarantine.ts";
import type { GitRun } from "./snapshot.ts";

/*
 * What a sandboxed command could leave for the user's own git and the next OpenCode start that no
 * read-only mount can hold: a mount needs something to mount on, and bubblewrap would create an
 * empty file or folder in the real tree for every missing path (an empty `.git/commondir` breaks
 * git itself), while a read-only `.git` breaks git's lock files. So otto notes, before each
 * sandboxed command, which of those paths are missing and where the refs point (file reads only,
 * no git process), and looks again after it:
 *
 * - a git control path that appeared (`commondir`, `gitdir`, `hooks`, `info`, `modules`,
 *   `config.worktree` of any git directory of the checkout), OpenCode configuration at the tree's
 *   top (`.opencode`, `opencode.json[c]`) and a hook manager's configuration (lefthook,
 *   pre-commit) while a hook is installed, is moved into otto's data folder;
 * - a gitlink added to the index is taken out of it (the user's `git status` would descend into
 *   the nested repository and run its configuration);
 * - a branch or tag other than the one the checkout has out that moved or went is put back.
 */

/** Paths in a git directory that steer where git looks or what it runs. */
const GIT_CONTROL = ["commondir", "gitdir", "hooks", "info", "modules", "config.worktree"];
/** At the tree's top: what the next OpenCode start loads as code. */
export const OPENCODE_CONTROL = [".opencode", "opencode.json", "opencode.jsonc"];

export interface ControlWatch {
  root: string;
  /** Control paths missing before the command. */
  absent: string[];
  /** Refs of the common git directory (`refs/heads`, `refs/tags`), name → object id; undefined outside git. */
  refs?: { common: string; own: string | undefined; values: Map<string, string> };
  /** The index's gitlinks, and its file's stamp (a changed stamp is read again). */
  index?: { file: string; stamp: string; gitlinks: Set<string> };
}

export interface Settled {
  quarantined?: Quarantined;
  /** Refs put back where they were. */
  refs: string[];
  /** Gitlinks taken out of the index. */
  gitlinks: string[];
}

/** Every git directory of the checkout: the tree's own, the common one, and each linked worktree's. */
export function checkoutGitDirs(tree: TreePaths): string[] {
  const common = tree.sharedCommon ?? tree.gitDirs.at(-1);
  const dirs = [...tree.gitDirs, ...(common ? [common] : [])];
  if (common) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(path.join(common, "worktrees"));
    } catch {
      // No linked worktree.
    }
    for (const name of names) dirs.push(path.join(common, "worktrees", name));
  }
  return [...new Set(dirs)];
}

/** The hooks folder holds a hook (not git's samples): a hook manager's configuration would run. */
function hooksInstalled(common: string | undefined): boolean {
  if (!common) return false;
  try {
    return fs.readdirSync(path.join(common, "hooks")).some((n) => !n.endsWith(".sample"));
  } catch {
    return false;
  }
}

/** What to compare after a sandboxed command in `tree`: stats and small file reads only. */
export function watchControls(tree: TreePaths): ControlWatch {
  const root = tree.root;
  const common = tree.sharedCommon ?? tree.gitDirs.at(-1);
  const candidates = [
    ...checkoutGitDirs(tree).flatMap((dir) => GIT_CONTROL.map((name) => path.join(dir, name))),
    ...OPENCODE_CONTROL.map((name) => path.join(root, name)),
    ...(hooksInstalled(common) ? HOOK_MANAGER_CONFIG.map((name) => path.join(root, name)) : []),
  ];
  const absent = candidates.filter((p) => !fs.lstatSync(p, { throwIfNoEntry: false }));
  const own = tree.gitDirs[0];
  const watch: ControlWatch = { root, absent };
  if (common && own) {
    watch.refs = { common, own: headBranch(own), values: readRefs(common) };
    const file = path.join(own, "index");
    const stamp = stampOf(file);
    watch.index = { file, stamp, gitlinks: gitlinksOf(file, stamp) };
  }
  return watch;
}

/**
 * Looks again: quarantines what appeared, takes new gitlinks out of the index, puts moved refs back.
 * `pathsOnly`: at a session's end, against its first command's look: the index and refs are left
 * alone, since the user's own git may have moved them meanwhile.
 */
export async function settleControls(watch: ControlWatch, env: Env, git: GitRun, options: { pathsOnly?: boolean } = {}): Promise<Settled> {
  const settled: Settled = { refs: [], gitlinks: [] };
  const appeared = watch.absent.filter((p) => fs.lstatSync(p, { throwIfNoEntry: false }));
  if (appeared.length > 0) settled.quarantined = moveAll(watch.root, appeared, env);
  if (options.pathsOnly) return settled;
  if (watch.index && watch.refs) {
    const stamp = stampOf(watch.index.file);
    if (stamp !== watch.index.stamp) {
      const now = gitlinksOf(watch.index.file, stamp);
      for (const link of now) {
        if (watch.index.gitlinks.has(link)) continue;
        const result = await git(["update-index", "--force-remove", "--", link], { cwd: watch.root });
        if (result.exitCode === 0) settled.gitlinks.push(link);
      }
    }
  }
  if (watch.refs) settled.refs = putBackRefs(watch.refs);
  return settled;
}

/** The line that tells the user (and the session) what otto undid, or undefined when nothing. */
export function settledLine(settled: Settled): string | undefined {
  const parts: string[] = [];
  if (settled.quarantined)
    parts.push(
      `moved ${settled.quarantined.paths.join(", ")} out of the tree into ${settled.quarantined.dir} (git or OpenCode control files a sandboxed command created; they would run outside the sandbox): look before you copy any of it back`,
    );
  if (settled.gitlinks.length > 0)
    parts.push(`took the submodule pointers ${settled.gitlinks.join(", ")} out of the index (the files stay on disk)`);
  if (settled.refs.length > 0) parts.push(`put ${settled.refs.join(", ")} back where they pointed (only the checked-out branch may move)`);
  return parts.length > 0 ? `otto ${parts.join("; ")}.` : undefined;
}

function moveAll(root: string, paths: readonly string[], env: Env): Quarantined {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const dir = path.join(xdgPaths(env).ottoDataDir, "quarantine", `${path.basename(root)}-${stamp}`);
  const moved: string[] = [];
  for (const from of paths) {
    const rel = path.relative(root, from);
    // A git directory outside the tree (a linked worktree's) keeps its whole path under `outside/`.
    const name = rel.startsWith("..") || path.isAbsolute(rel) ? path.join("outside", from) : rel;
    try {
      moveOut(from, path.join(dir, name));
      moved.push(name);
    } catch {
      // Gone meanwhile, or not movable: the commit and push guards still compare git's control files.
    }
  }
  return { paths: moved, dir };
}

// The index's and its shared indexes' inode, size, mtime and ctime (ctime: a rewrite `touch`ed back still counts).
const stampOf = indexStamp;

function headBranch(gitDir: string): string | undefined {
  try {
    const head = fs.readFileSync(path.join(gitDir, "HEAD"), "utf8").trim();
    return head.startsWith("ref: ") ? head.slice(5).trim() : undefined;
  } catch {
    return undefined;
  }
}

/** Branches and tags: packed-refs, overridden by loose files. Symbolic refs are left out. */
function readRefs(common: string): Map<string, string> {
  const values = new Map<string, string>();
  let packed = "";
  try {
    packed = fs.readFileSync(path.join(common, "packed-refs"), "utf8");
  } catch {
    // None packed.
  }
  for (const line of packed.split("\n")) {
    const match = /^([0-9a-f]{40,64}) (refs\/(?:heads|tags)\/\S+)$/.exec(line);
    if (match?.[1] && match[2]) values.set(match[2], match[1]);
  }
  const walk = (rel: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(common, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const name = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(name);
      else if (entry.isFile() && !entry.name.endsWith(".lock")) {
        const value = fs.readFileSync(path.join(common, name), "utf8").trim();
        if (/^[0-9a-f]{40,64}$/.test(value)) values.set(name, value);
      }
    }
  };
  walk("refs/heads");
  walk("refs/tags");
  return values;
}

/** Writes each moved or deleted ref (other than the checked-out branch) back as a loose ref. */
function putBackRefs(refs: NonNullable<ControlWatch["refs"]>): string[] {
  const now = readRefs(refs.common);
  const back: string[] = [];
  for (const [name, value] of refs.values) {
    if (name === refs.own || now.get(name) === value) continue;
    const file = path.join(refs.common, name);
    try {
      // A folder planted where the ref's file was (refs/heads/release/x) goes first.
      if (fs.lstatSync(file, { throwIfNoEntry: false })?.isDirectory()) fs.rmSync(file, { recursive: true });
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const temp = `${file}.otto-${process.pid}`;
      fs.writeFileSync(temp, `${value}\n`);
      fs.renameSync(temp, file);
      back.push(name.replace(/^refs\/(heads|tags)\//, (_m, kind: string) => (kind === "heads" ? "branch " : "tag ")));
    } catch {
      // Not writable back: the commit and push guards still see the tree as it is.
    }
  }
  return back;
}

const gitlinkCache = new Map<string, { stamp: string; links: Set<string> }>();

/** The index's gitlinks, read as data; cached by the file's stamp (most commands leave the index alone). */
function gitlinksOf(file: string, stamp: string): Set<string> {
  const cached = gitlinkCache.get(file);
  if (cached?.stamp === stamp) return cached.links;
  // Throws on an index otto cannot read (fail closed): before a command it does not run.
  const links = readIndexGitlinks(file);
  gitlinkCache.set(file, { stamp, links });
  return links;
}
