import fs from "node:fs";
import type { Repo } from "../config/index.ts";
import { listBranchRefs, managedBranchMatcher } from "./branch-refs.ts";
import { isInside, remoteKeys, worktreeDirOf } from "./find-repo.ts";
import type { GitEnv } from "../workspace/index.ts";
import { listGitWorktrees, readStatus } from "../workspace/index.ts";
import { prBelongsTo, readTrackedPrs, type TrackedPr } from "./tracked-prs.ts";
import { assertPrimaryDir } from "./worktree-add.ts";

export interface ActiveSpec {
  slug: string;
  /** Tasks not completed or skipped. */
  unfinished: number;
  total: number;
}

export interface WorktreeEntry {
  /** primary: the main clone; worktree: a linked worktree; branch: a branch that is not checked out. */
  kind: "primary" | "worktree" | "branch";
  /** undefined for a branch that is not checked out. */
  path: string | undefined;
  /** undefined when detached. */
  branch: string | undefined;
  head: string | undefined;
  /** Under worktree_dir (worktree strategy), or following branch_template / branch_patterns (branch strategy). */
  managed: boolean;
  /** undefined for a branch that is not checked out; missing: registered, but the directory is gone. */
  state: "clean" | "dirty" | "missing" | undefined;
  changes: number;
  upstream: string | undefined;
  ahead: number | undefined;
  behind: number | undefined;
  specs: ActiveSpec[];
  prs: TrackedPr[];
}

/** The otto specs with unfinished tasks in a working tree (injected: specs live above this layer). */
export type SpecsIn = (dir: string) => ActiveSpec[];

export interface ListOptions {
  git?: GitEnv;
  /** `$XDG_DATA_HOME/otto/prs`; no PRs are shown without it. */
  prDir?: string;
  specs?: SpecsIn;
}

export interface WorktreeListing {
  repo: Repo;
  entries: WorktreeEntry[];
}

type Base = Pick<WorktreeEntry, "kind" | "path" | "branch" | "head" | "managed">;

async function checkedOut(base: Base, { git = {}, specs }: ListOptions): Promise<WorktreeEntry> {
  const none = { upstream: undefined, ahead: undefined, behind: undefined, specs: [], prs: [] };
  if (base.path === undefined || !fs.existsSync(base.path)) return { ...base, ...none, state: "missing", changes: 0 };
  const status = await readStatus(base.path, git);
  return {
    ...base,
    ...none,
    branch: status.branch,
    head: status.head,
    state: status.dirty ? "dirty" : "clean",
    changes: status.changes.length,
    upstream: status.upstream,
    ahead: status.ahead,
    behind: status.behind,
    specs: specs?.(base.path) ?? [],
  };
}

async function byStrategy(repo: Repo, options: ListOptions): Promise<WorktreeEntry[]> {
  const primary = repo.primary_dir;
  const git = options.git ?? {};
  if (repo.git_strategy === "worktree") {
    const worktrees = (await listGitWorktrees(primary, git)).filter((w) => !w.bare);
    return Promise.all(
      worktrees.map((w, i) =>
        checkedOut(
          {
            kind: i === 0 ? "primary" : "worktree",
            path: w.path,
            branch: w.branch,
            head: w.head,
            managed: i > 0 && isInside(w.path, worktreeDirOf(repo)),
          },
          options,
        ),
      ),
    );
  }
  const current = await checkedOut({ kind: "primary", path: primary, branch: undefined, head: undefined, managed: false }, options);
  if (repo.git_strategy === "hands-off") return [current];
  const isManaged = managedBranchMatcher(repo);
  const everything = repo.branch_template === undefined && repo.branch_patterns.length === 0;
  current.managed = current.branch !== undefined && isManaged(current.branch);
  const others = (await listBranchRefs(primary, git))
    .filter((b) => b.name !== current.branch && (everything || isManaged(b.name)))
    .map((b): WorktreeEntry => ({
      kind: "branch",
      path: undefined,
      branch: b.name,
      head: b.head,
      managed: !everything,
      state: undefined,
      changes: 0,
      upstream: b.upstream,
      ahead: b.ahead,
      behind: b.behind,
      specs: [],
      prs: [],
    }));
  return [current, ...others];
}

/**
 * `/otto-worktree list`: the repo's worktrees (worktree strategy), its otto branches (branch
 * strategy) or its primary dir (hands-off), each with its state, ahead/behind its upstream, the
 * otto specs with unfinished tasks inside it, and the tracked PRs on its branch.
 */
export async function listWorktrees(repo: Repo, options: ListOptions = {}): Promise<WorktreeListing> {
  const git = options.git ?? {};
  await assertPrimaryDir(repo, git);
  const [entries, prs, keys] = await Promise.all([
    byStrategy(repo, options),
    options.prDir === undefined ? Promise.resolve([]) : readTrackedPrs(options.prDir),
    remoteKeys(repo.primary_dir, git),
  ]);
  const mine = prs.filter((pr) => prBelongsTo(pr, { name: repo.name, remoteKeys: keys.map((k) => k.key) }));
  for (const entry of entries) entry.prs = mine.filter((pr) => pr.branch !== undefined && pr.branch === entry.branch);
  return { repo, entries };
}
