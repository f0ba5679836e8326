import fs from "node:fs";
import path from "node:path";

/*
 * A git killed by a timeout cannot delete the `index.lock` it took, and a lock left behind stops
 * every later write in that tree ("Unable to create index.lock: File exists"). Otto removes it only
 * when it can tell the lock is its own killed git's, never a person's running git:
 * - the lock is not older than the killed git's start (a lock from before is someone else's; a
 *   git that found one would have failed at once with "File exists", not hung);
 * - no running process holds the file open, and no running git works in the same tree (read from
 *   /proc; where there is no /proc the lock is left and the error names it).
 * The killed git's whole process group is dead by then (SIGKILL), so it holds nothing.
 */

/** The git directory of the tree holding `dir` (a worktree's own, from its `.git` file); undefined outside one. */
export function findGitDir(dir: string): string | undefined {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const dotGit = path.join(current, ".git");
    try {
      const stat = fs.statSync(dotGit);
      if (stat.isDirectory()) return dotGit;
      const pointer = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, "utf8"))?.[1]?.trim();
      return pointer ? path.resolve(current, pointer) : undefined;
    } catch {
      // No .git here: look one level up.
    }
    if (path.dirname(current) === current) return undefined;
  }
}

const PROC = "/proc";
const CLOCK_SLACK_MS = 20;

/** Pids whose open files include `file`, or whose cwd is inside `tree` and whose command is git. */
function holders(file: string, tree: string): number[] | undefined {
  let pids: string[];
  try {
    pids = fs.readdirSync(PROC).filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const out: number[] = [];
  const real = (p: string): string => {
    try {
      return fs.realpathSync(p);
    } catch {
      return p;
    }
  };
  const treeReal = real(tree);
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      const comm = fs.readFileSync(path.join(PROC, pid, "comm"), "utf8").trim();
      if (comm === "git" || comm.startsWith("git-")) {
        const cwd = fs.readlinkSync(path.join(PROC, pid, "cwd"));
        if (cwd === treeReal || cwd.startsWith(`${treeReal}${path.sep}`)) {
          out.push(Number(pid));
          continue;
        }
      }
      for (const fd of fs.readdirSync(path.join(PROC, pid, "fd"))) {
        if (fs.readlinkSync(path.join(PROC, pid, "fd", fd)) === file) {
          out.push(Number(pid));
          break;
        }
      }
    } catch {
      // Gone, or not ours to read.
    }
  }
  return out;
}

/**
 * Removes `<gitdir>/index.lock` after otto's git in `cwd` (started at `startedAt`, ms) was killed,
 * when it is that git's (see above). Returns the removed path, undefined when nothing was removed.
 * Never throws.
 */
export async function removeOwnIndexLock(options: { cwd: string }, startedAt: number): Promise<string | undefined> {
  try {
    const gitDir = findGitDir(options.cwd);
    if (!gitDir) return undefined;
    const lock = path.join(gitDir, "index.lock");
    const stat = await fs.promises.stat(lock).catch(() => undefined);
    // File times come from the kernel's coarse clock, a few ms behind Date.now(): allow one tick.
    if (!stat || stat.mtimeMs < startedAt - CLOCK_SLACK_MS) return undefined;
    // SIGKILL is delivered at once, but the kernel may still be closing the killed git's files.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const tree = path.basename(gitDir) === ".git" ? path.dirname(gitDir) : options.cwd;
    const held = holders(fs.realpathSync(lock), tree);
    if (held === undefined || held.length > 0) return undefined;
    await fs.promises.rm(lock, { force: true });
    return lock;
  } catch {
    return undefined;
  }
}
