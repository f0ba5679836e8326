import fs from "node:fs";
import path from "node:path";
import { errorLine, xdgPaths, type Env } from "../core/index.ts";
import { HOOK_MANAGER_CONFIG, indexStamp, missingConfigIncludes, readIndexGitlinks, within, type TreePaths } from "../sandbox/index.ts";
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
 *
 * Every path is reached without following a link on the way (a command can swap a folder such as
 * `.git/worktrees/<name>` or `refs/heads` for a link elsewhere): a link found there is itself
 * what is moved out, and nothing is read, written or moved through it. What cannot be moved is
 * said, never passed over.
 */

/** Paths in a git directory that steer where git looks or what it runs. */
const GIT_CONTROL = ["commondir", "gitdir", "hooks", "info", "modules", "config.worktree"];
/** At the tree's top: what the next OpenCode start loads as code. */
export const OPENCODE_CONTROL = [".opencode", "opencode.json", "opencode.jsonc"];

export interface ControlWatch {
  root: string;
  /** Control paths missing before the command, each with the folder it is reached from (the tree or the common git directory). */
  absent: Array<{ path: string; base: string }>;
  /** Refs of the common git directory (`refs/heads`, `refs/tags`), name → object id; undefined outside git. */
  refs?: { common: string; own: string | undefined; values: Map<string, string> };
  /** The index's gitlinks, and its file's stamp (a changed stamp is read again). */
  index?: { file: string; stamp: string; gitlinks: Set<string> };
  /** With `nested`: OpenCode configuration below the tree's top (OpenCode started in a subfolder loads it), as found. */
  nested?: Set<string>;
}

export interface Settled {
  quarantined?: Quarantined;
  /** Refs put back where they were. */
  refs: string[];
  /** Gitlinks taken out of the index. */
  gitlinks: string[];
  /** What could not be moved out or put back, with why. */
  failed: string[];
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

/**
 * What to compare after a sandboxed command in `tree`: stats and small file reads only. `nested`
 * walks the whole tree too (a session's first command, a check): `.opencode` and `opencode.json[c]`
 * at any depth, which OpenCode loads when started in a folder below them.
 */
export function watchControls(tree: TreePaths, options: { nested?: boolean; env?: Env } = {}): ControlWatch {
  const root = tree.root;
  const common = tree.sharedCommon ?? tree.gitDirs.at(-1);
  // A git directory under the common one (a linked worktree's) is reached from it: `worktrees` or
  // `worktrees/<name>` may be swapped for a link.
  const baseOf = (dir: string): string => (common && within(dir, common) ? common : dir);
  const candidates = [
    ...checkoutGitDirs(tree).flatMap((dir) => GIT_CONTROL.map((name) => ({ path: path.join(dir, name), base: baseOf(dir) }))),
    ...OPENCODE_CONTROL.map((name) => ({ path: path.join(root, name), base: root })),
    ...(hooksInstalled(common) ? HOOK_MANAGER_CONFIG.map((name) => ({ path: path.join(root, name), base: root })) : []),
    // A file the tree's git config includes that is not there yet (`include.path = ../.gitconfig.local`).
    ...(options.env
      ? missingConfigIncludes(root, tree.gitDirs, options.env).map((file) => ({
          path: file,
          base: within(file, root) ? root : baseOf(file),
        }))
      : []),
  ];
  const absent = candidates.filter((c) => !fs.lstatSync(c.path, { throwIfNoEntry: false }));
  const own = tree.gitDirs[0];
  const watch: ControlWatch = { root, absent, ...(options.nested ? { nested: nestedOpencode(root) } : {}) };
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
  const settled: Settled = { refs: [], gitlinks: [], failed: [] };
  // What appeared, or the link on its way that now stands in for a folder: the link is moved, not what it leads to.
  const appeared = new Set(
    watch.absent.flatMap((c) => {
      const link = linkOnTheWay(c.base, c.path);
      if (link) return [link];
      return fs.lstatSync(c.path, { throwIfNoEntry: false }) ? [c.path] : [];
    }),
  );
  // Found by a walk that follows no link: nothing on their way to look at again.
  if (watch.nested) for (const p of nestedOpencode(watch.root)) if (!watch.nested.has(p)) appeared.add(p);
  const move = mover(watch.root, env, settled);
  move([...appeared]);
  if (options.pathsOnly) return settled;
  // Refs first: an index otto cannot read must not leave them moved.
  if (watch.refs) settled.refs = putBackRefs(watch.refs, move, settled.failed);
  if (watch.index && watch.refs) {
    const stamp = stampOf(watch.index.file);
    if (stamp !== watch.index.stamp) {
      let now: Set<string>;
      try {
        now = gitlinksOf(watch.index.file, stamp);
      } catch (error) {
        // Said here; the next sandboxed command's look refuses it (git_index_unreadable).
        settled.failed.push(`the index ${watch.index.file}, which otto cannot read (${errorLine(error)})`);
        return settled;
      }
      for (const link of now) {
        if (watch.index.gitlinks.has(link)) continue;
        const result = await git(["update-index", "--force-remove", "--", link], { cwd: watch.root });
        if (result.exitCode === 0) settled.gitlinks.push(link);
      }
    }
  }
  return settled;
}

/** The line that tells the user (and the session) what otto undid, or undefined when nothing. */
export function settledLine(settled: Settled): string | undefined {
  const parts: string[] = [];
  if (settled.quarantined && settled.quarantined.paths.length > 0)
    parts.push(
      `moved ${settled.quarantined.paths.join(", ")} out of the tree into ${settled.quarantined.dir} (git or OpenCode control files a sandboxed command created; they would run outside the sandbox): look before you copy any of it back`,
    );
  if (settled.gitlinks.length > 0)
    parts.push(`took the submodule pointers ${settled.gitlinks.join(", ")} out of the index (the files stay on disk)`);
  if (settled.refs.length > 0) parts.push(`put ${settled.refs.join(", ")} back where they pointed (only the checked-out branch may move)`);
  if (settled.failed.length > 0)
    parts.push(
      `could NOT undo ${settled.failed.join("; ")}: git or OpenCode would run it outside the sandbox; remove it before you run git or OpenCode in this checkout`,
    );
  return parts.length > 0 ? `otto ${parts.join("; ")}.` : undefined;
}

/** Moves paths into one quarantine folder of this look, made on the first move; what cannot be moved goes to `failed`. */
function mover(root: string, env: Env, settled: Settled): (paths: readonly string[]) => void {
  return (paths) => {
    for (const from of paths) {
      const stat = fs.lstatSync(from, { throwIfNoEntry: false });
      if (!stat) continue;
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      const q = (settled.quarantined ??= {
        paths: [],
        dir: path.join(xdgPaths(env).ottoDataDir, "quarantine", `${path.basename(root)}-${stamp}`),
      });
      const rel = path.relative(root, from);
      // A git directory outside the tree (a linked worktree's) keeps its whole path under `outside/`.
      const name = rel.startsWith("..") || path.isAbsolute(rel) ? path.join("outside", from) : rel;
      try {
        // A folder the command made read-only cannot be renamed by its owner: writable first (lstat: never through a link).
        if (stat.isDirectory() && (stat.mode & 0o200) === 0) fs.chmodSync(from, stat.mode | 0o700);
        moveOut(from, path.join(q.dir, name));
        q.paths.push(name);
      } catch (error) {
        settled.failed.push(`${from} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      }
    }
  };
}

/** The first link between `base` (excluded) and `file`'s folder, or undefined when every folder on the way is a real one. */
function linkOnTheWay(base: string, file: string): string | undefined {
  if (!within(file, base)) return undefined;
  const rel = path.relative(base, file);
  let at = base;
  for (const part of rel.split(path.sep).slice(0, -1)) {
    at = path.join(at, part);
    if (fs.lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) return at;
  }
  return undefined;
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
    // Real folders only: a link (`refs/heads` swapped for one) is not read through.
    if (!fs.lstatSync(path.join(common, rel), { throwIfNoEntry: false })?.isDirectory()) return;
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
  if (fs.lstatSync(path.join(common, "refs"), { throwIfNoEntry: false })?.isDirectory()) {
    walk("refs/heads");
    walk("refs/tags");
  }
  return values;
}

/**
 * Writes each moved or deleted ref (other than the checked-out branch) back as a loose ref. A link
 * that stands in for a refs folder, or a folder planted where a ref's file was, is moved out
 * first, never followed or deleted; with `refs` or `refs/heads` swapped, the checked-out branch
 * is put back too (what it pointed to then is the command's).
 */
function putBackRefs(refs: NonNullable<ControlWatch["refs"]>, move: (paths: readonly string[]) => void, failed: string[]): string[] {
  const swapped = ["refs", "refs/heads", "refs/tags"]
    .map((name) => path.join(refs.common, name))
    .filter((dir) => fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink());
  move(swapped);
  const now = readRefs(refs.common);
  const back: string[] = [];
  for (const [name, value] of refs.values) {
    if ((name === refs.own && swapped.length === 0) || now.get(name) === value) continue;
    const file = path.join(refs.common, name);
    const link = linkOnTheWay(refs.common, file);
    if (link) move([link]);
    if (fs.lstatSync(file, { throwIfNoEntry: false })?.isDirectory()) move([file]);
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      if (linkOnTheWay(refs.common, file) || fs.lstatSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new Error("ELINK");
      const temp = `${file}.otto-${process.pid}`;
      // A planted link of that name is removed as a link; the new file is created, never opened through one.
      fs.rmSync(temp, { force: true });
      fs.writeFileSync(temp, `${value}\n`, { flag: "wx" });
      fs.renameSync(temp, file);
      back.push(name.replace(/^refs\/(heads|tags)\//, (_m, kind: string) => (kind === "heads" ? "branch " : "tag ")));
    } catch (error) {
      failed.push(`${name}, not put back (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
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

/** `.opencode` and `opencode.json[c]` below the tree's top: a walk that never follows a link or enters a git directory, with no budget to spend. */
function nestedOpencode(root: string): Set<string> {
  const found = new Set<string>();
  const stack = [root];
  for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const at = path.join(dir, entry.name);
      if (dir !== root && OPENCODE_CONTROL.includes(entry.name)) found.add(at);
      else if (entry.isDirectory() && entry.name !== ".git") stack.push(at);
    }
  }
  return found;
}
