/** A working tree's state from one `git status --porcelain=v2 --branch` (pure parsing). */
export interface WorkingStatus {
  /** The checked-out branch; undefined when HEAD is detached. */
  branch: string | undefined;
  /** The HEAD commit; undefined in a repository without commits. */
  head: string | undefined;
  /** e.g. "origin/main"; undefined when the branch tracks nothing. */
  upstream: string | undefined;
  /** Commits on the branch that its upstream lacks, and the reverse; undefined without an upstream (or when it is gone). */
  ahead: number | undefined;
  behind: number | undefined;
  /** Uncommitted changes, untracked files included. */
  dirty: boolean;
  /** One line per changed path, `XY path` like `git status --short` ("?? notes.txt", ".M src/a.ts"). */
  changes: string[];
}

// Fields before the path on each kind of entry line.
// https://git-scm.com/docs/git-status#_porcelain_format_version_2
const FIELDS_BEFORE_PATH: Record<string, number> = { "1": 8, "2": 9, u: 10 };

function changeLine(line: string): string | undefined {
  if (line.startsWith("? ")) return `?? ${line.slice(2)}`;
  const kind = line[0] ?? "";
  const count = FIELDS_BEFORE_PATH[kind];
  if (count === undefined) return undefined;
  const parts = line.split(" ");
  const xy = parts[1] ?? "..";
  // Renames carry "<path>\t<original path>".
  const file = parts.slice(count).join(" ").split("\t")[0] ?? "";
  return `${xy} ${file}`;
}

export function parseStatus(text: string): WorkingStatus {
  const status: WorkingStatus = {
    branch: undefined,
    head: undefined,
    upstream: undefined,
    ahead: undefined,
    behind: undefined,
    dirty: false,
    changes: [],
  };
  for (const line of text.split("\n")) {
    if (line.startsWith("# branch.oid ")) {
      const oid = line.slice("# branch.oid ".length).trim();
      status.head = oid === "(initial)" ? undefined : oid;
    } else if (line.startsWith("# branch.head ")) {
      const head = line.slice("# branch.head ".length).trim();
      status.branch = head === "(detached)" ? undefined : head;
    } else if (line.startsWith("# branch.upstream ")) {
      status.upstream = line.slice("# branch.upstream ".length).trim();
    } else if (line.startsWith("# branch.ab ")) {
      const ab = /\+(\d+) -(\d+)/.exec(line);
      if (ab) {
        status.ahead = Number(ab[1]);
        status.behind = Number(ab[2]);
      }
    } else {
      const change = changeLine(line);
      if (change) status.changes.push(change);
    }
  }
  status.dirty = status.changes.length > 0;
  return status;
}

/** One entry of `git worktree list --porcelain`. */
export interface GitWorktree {
  path: string;
  head: string | undefined;
  /** Short branch name; undefined when detached or bare. */
  branch: string | undefined;
  bare: boolean;
  detached: boolean;
  locked: boolean;
  /** Registered, but its directory is gone (`git worktree prune` forgets it). */
  prunable: boolean;
}

/** Pure: `git worktree list --porcelain` → entries; the first is the main worktree. */
export function parseWorktreeList(text: string): GitWorktree[] {
  const out: GitWorktree[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split("\n").filter(Boolean);
    const pathLine = lines.find((l) => l.startsWith("worktree "));
    if (!pathLine) continue;
    const value = (key: string) => lines.find((l) => l === key || l.startsWith(`${key} `))?.slice(key.length + 1);
    const has = (key: string) => lines.some((l) => l === key || l.startsWith(`${key} `));
    const ref = value("branch");
    out.push({
      path: pathLine.slice("worktree ".length),
      head: value("HEAD"),
      branch: ref?.replace(/^refs\/heads\//, ""),
      bare: has("bare"),
      detached: has("detached"),
      locked: has("locked"),
      prunable: has("prunable"),
    });
  }
  return out;
}
