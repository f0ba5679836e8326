import fs from "node:fs";
import path from "node:path";
import { OttoError } from "../core/index.ts";
import { within, type SandboxMode } from "../sandbox/index.ts";

/*
 * Where a tree's git directories are, read from the filesystem only. Asking git (`rev-parse`)
 * in a tree sandboxed code wrote would let that code answer: a `.git` file or a `commondir`
 * pointing at a git directory it planted (with `core.fsmonitor`, hooks, `core.worktree = $HOME`)
 * makes git run its program, or makes the sandbox bind the user's home writable. So otto reads
 * the layout itself, checks it is one git would make, records the first answer per tree, and
 * refuses before git starts when a later reading differs (docs/security.md, "Otto's own git").
 */

export interface TreeLayout {
  /** The work tree's top level (real path). */
  root: string;
  /** The tree's own git directory: `<root>/.git`, or `<common>/worktrees/<name>` for a linked worktree. */
  gitDir: string;
  /** The repository's common git directory (objects, refs, config); gitDir itself for a main checkout. */
  commonDir: string;
}

/*
 * Otto's record: the first layout read for each tree in this process. Process-wide on purpose: a
 * tree's layout belongs to the machine, not to one plugin instance, and a second instance must
 * not take a tampered layout as the first reading. Otto forgets a tree it removes itself.
 */
const recorded = new Map<string, TreeLayout>();

/*
 * The trees sandboxed code has held (a session's command, a check, a hook), with the sandbox mode
 * it ran in: otto's local git commands there run in the sandbox too (git.ts). Set where the code
 * is wrapped (treePaths with a mode), so no flow has to pass the mode down to every git call.
 * Kept across processes in the tree's git directory, `info/otto-sandboxed`: the sandbox shows
 * `info` read-only, so the code it held can neither remove the mark nor plant it elsewhere.
 */
const held = new Map<string, SandboxMode>();
const MARK = path.join("info", "otto-sandboxed");
const MODES: readonly SandboxMode[] = ["auto", "required"];

function readMark(gitDir: string): SandboxMode | undefined {
  const file = path.join(gitDir, MARK);
  if (!fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
  const mode = readText(file)?.trim();
  return MODES.find((m) => m === mode);
}

function writeMark(gitDir: string, mode: SandboxMode): void {
  try {
    fs.mkdirSync(path.join(gitDir, "info"), { recursive: true });
    const file = path.join(gitDir, MARK);
    // A link there would be followed by the write: replaced, never written through.
    if (fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) fs.rmSync(file);
    fs.writeFileSync(file, `${mode}\n`);
  } catch {
    // A read-only git directory: the mark lives for this process only.
  }
}

function invalid(root: string, what: string): OttoError {
  return new OttoError(
    "git_layout_invalid",
    `The git layout of ${root} is not one git makes: ${what}. Otto runs no git there: something (a session's command, a check) may have redirected it.`,
    `Look at ${path.join(root, ".git")} (and the commondir, gitdir and config files of the git directory it names), restore what you did not make, then run the command again.`,
  );
}

function changed(root: string, before: TreeLayout, now: TreeLayout): OttoError {
  const parts = (["root", "gitDir", "commonDir"] as const).filter((k) => before[k] !== now[k]).map((k) => `${k} ${before[k]} → ${now[k]}`);
  return new OttoError(
    "git_layout_changed",
    `The git layout of ${root} changed since otto first read it (${parts.join("; ")}). Otto runs no git there: a session's command or a check may have redirected it.`,
    `Look at ${path.join(root, ".git")} and the commondir and gitdir files of its git directory, restore what you did not make, then run the command again (or restart OpenCode if you moved the repository yourself).`,
  );
}

const readText = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

const realOr = (file: string): string => {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
};

/** `core.worktree` of a git config file, read crudely (the last `worktree =` line of a `[core]` section). */
function coreWorktree(config: string | undefined): string | undefined {
  if (!config) return undefined;
  let section = "";
  let value: string | undefined;
  for (const line of config.split("\n")) {
    const header = /^\s*\[\s*([^\]\s"]+)/.exec(line);
    if (header) section = (header[1] ?? "").toLowerCase();
    const entry = /^\s*worktree\s*=\s*(.*?)\s*$/i.exec(line.replace(/^\s*\[[^\]]*\]/, ""));
    if (entry && section === "core") value = (entry[1] ?? "").replace(/^"(.*)"$/, "$1");
  }
  return value;
}

/** Pure checks of a reading: what git itself would follow must stay where a checkout's git lives. */
function validate(layout: TreeLayout, dotGitIsFile: boolean): void {
  const { root, gitDir, commonDir } = layout;
  if (!dotGitIsFile) {
    if (fs.existsSync(path.join(gitDir, "commondir"))) throw invalid(root, `${path.join(gitDir, "commondir")} exists in a main checkout`);
  } else {
    if (within(gitDir, root)) throw invalid(root, `its .git file points inside the work tree (${gitDir})`);
    if (within(commonDir, root)) throw invalid(root, `its commondir points inside the work tree (${commonDir})`);
    if (gitDir !== commonDir) {
      if (path.dirname(gitDir) !== path.join(commonDir, "worktrees"))
        throw invalid(root, `its git directory ${gitDir} is not under ${path.join(commonDir, "worktrees")}`);
      const back = readText(path.join(gitDir, "gitdir"))?.trim();
      if (!back || realOr(path.resolve(gitDir, back)) !== path.join(root, ".git"))
        throw invalid(root, `${path.join(gitDir, "gitdir")} does not point back at ${path.join(root, ".git")}`);
    }
  }
  for (const config of [path.join(commonDir, "config"), path.join(gitDir, "config.worktree")]) {
    const worktree = coreWorktree(readText(config));
    if (worktree !== undefined && realOr(path.resolve(gitDir, worktree)) !== root)
      throw invalid(root, `${config} sets core.worktree to ${worktree}`);
  }
}

/**
 * The layout of the tree around `cwd`, from the filesystem: the nearest `.git` above it (a folder
 * is the git directory; a file names it with `gitdir:`, and its `commondir` names the common one).
 * Undefined outside a work tree (a bare repository, a plain folder). Throws `git_layout_invalid`.
 */
function readTreeLayout(cwd: string): TreeLayout | undefined {
  let dir: string;
  try {
    dir = fs.realpathSync(cwd);
  } catch {
    return undefined;
  }
  for (;;) {
    const dotGit = path.join(dir, ".git");
    const stat = fs.statSync(dotGit, { throwIfNoEntry: false });
    if (stat?.isDirectory()) {
      const layout = { root: dir, gitDir: realOr(dotGit), commonDir: realOr(dotGit) };
      if (layout.gitDir !== dotGit) throw invalid(dir, `${dotGit} is a link to ${layout.gitDir}`);
      validate(layout, false);
      return layout;
    }
    if (stat?.isFile()) {
      const match = /^gitdir: (.+?)\s*$/m.exec(readText(dotGit) ?? "");
      if (!match?.[1]) throw invalid(dir, `${dotGit} holds no "gitdir:" line`);
      const gitDir = realOr(path.resolve(dir, match[1]));
      const common = readText(path.join(gitDir, "commondir"))?.trim();
      const layout = { root: dir, gitDir, commonDir: common ? realOr(path.resolve(gitDir, common)) : gitDir };
      validate(layout, true);
      return layout;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The layout of the tree around `cwd`, checked against otto's record: the first reading of a tree
 * is recorded, a later one that differs throws `git_layout_changed`. A few stat and read calls,
 * no git: runGit calls it before every git command.
 */
export function checkTreeLayout(cwd: string, sandbox?: SandboxMode): TreeLayout | undefined {
  const layout = readTreeLayout(cwd);
  if (!layout) return undefined;
  const before = recorded.get(layout.root);
  if (!before) {
    recorded.set(layout.root, layout);
    const marked = readMark(layout.gitDir);
    if (marked) held.set(layout.root, marked);
  }
  // A mode other than "off" sticks: code that once ran boxed there may have left anything.
  if (sandbox && sandbox !== "off" && !held.has(layout.root)) {
    held.set(layout.root, sandbox);
    writeMark(layout.gitDir, sandbox);
  }
  if (!before) return layout;
  if (before.gitDir !== layout.gitDir || before.commonDir !== layout.commonDir) throw changed(layout.root, before, layout);
  return before;
}

/** The sandbox mode sandboxed code held the tree at `root` in (its layout's root), if any did. */
export function heldSandbox(root: string): SandboxMode | undefined {
  return held.get(root);
}

/*
 * Otto's own temporary worktrees (temp-worktree.ts: detached, in a folder of otto's): their common
 * git directory is the user's checkout's, so code sandboxed there must not move the user's
 * branches, HEAD or index. The sandbox shows the common directory's refs, packed-refs, HEAD, index
 * and logs read-only for them (sandbox/policy.ts); a detached commit writes none of those.
 */
const own = new Set<string>();

/** `root` is a temporary worktree of otto's. */
export function markOwnWorktree(root: string): void {
  own.add(realOr(root));
}

export function isOwnWorktree(root: string): boolean {
  return own.has(realOr(root));
}

/** Otto removed the tree at `root` (its temporary worktree): a new tree may be made there. */
export function forgetTreeLayout(root: string): void {
  for (const key of [realOr(root), path.resolve(root)]) {
    recorded.delete(key);
    held.delete(key);
    own.delete(key);
  }
}
