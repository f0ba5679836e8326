import type { SandboxMode } from "../sandbox/index.ts";
import fs from "node:fs/promises";
import path from "node:path";
import { OttoError } from "../core/index.ts";
import type { Env } from "../core/index.ts";
import { changesSince, snapshotTree, TreeSnapshot, type GitControlSnapshot, type GitRun } from "../workspace/index.ts";

/*
 * What the working tree held before a run's first session (src/workspace/snapshot.ts): phase
 * commits take only what changed since. It is kept in the git directory while work of the run may
 * still be uncommitted, so a re-run after a crash or a cancel commits that work as the run's, not
 * as the user's; it is dropped once nothing the run changed is left uncommitted.
 */

const file = (gitDir: string, slug: string): string => path.join(gitDir, `otto-execute-${slug}.baseline.json`);

/** The stored baseline of an unfinished run, else a snapshot taken now (and stored). */
export async function openBaseline(git: GitRun, repoRoot: string, gitDir: string, slug: string): Promise<TreeSnapshot> {
  const stored = await fs.readFile(file(gitDir, slug), "utf8").catch(() => undefined);
  if (stored !== undefined) {
    const parsed = TreeSnapshot.safeParse(JSON.parse(stored));
    if (parsed.success) return parsed.data;
  }
  const snapshot = await snapshotTree(git, repoRoot);
  await fs.writeFile(file(gitDir, slug), JSON.stringify(snapshot));
  return snapshot;
}

/** Drops the stored baseline when nothing the run changed outside `include` is uncommitted. */
export async function closeBaseline(
  git: GitRun,
  repoRoot: string,
  gitDir: string,
  slug: string,
  baseline: TreeSnapshot,
  include: readonly string[],
): Promise<void> {
  const { paths } = await changesSince(git, repoRoot, baseline);
  if (paths.some((p) => !include.some((dir) => p.startsWith(dir)))) return;
  await fs.rm(file(gitDir, slug), { force: true });
}

/** The baseline of the run these deps belong to (set by withRunLock). */
export function baselineOf(deps: { baseline?: TreeSnapshot | undefined }): TreeSnapshot {
  if (!deps.baseline)
    throw new OttoError(
      "execute_no_baseline",
      "otto tried to commit outside a run (no snapshot of the tree before it).",
      "Report this as a bug in otto.",
    );
  return deps.baseline;
}

/**
 * The commit guard of the run these deps belong to: its git config and hooks must not have
 * changed; with `git.hooks: "run"`, the commit's hooks run in the sandbox.
 */
export function guardOf(deps: {
  gitControl?: GitControlSnapshot | undefined;
  env: Env;
  settings?: { gitHooks?: "skip" | "run"; sandbox?: SandboxMode };
}): {
  guard?: { snapshot: GitControlSnapshot; env: Env };
  hooks?: { sandbox: SandboxMode; env: Env };
} {
  return {
    ...(deps.gitControl ? { guard: { snapshot: deps.gitControl, env: deps.env } } : {}),
    ...(deps.settings?.gitHooks === "run" ? { hooks: { sandbox: deps.settings.sandbox ?? "auto", env: deps.env } } : {}),
  };
}
