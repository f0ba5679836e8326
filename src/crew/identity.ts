import fs from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../config/index.ts";
import { xdgPaths, type Env } from "../core/index.ts";
import { findRepo } from "../repo/index.ts";
import { currentBranch, runGit } from "../workspace/index.ts";
import { findCrewRoot } from "./paths.ts";

/*
 * Which crew a directory belongs to: (project, branch). The project is the tracked repo's name
 * (/otto-repo) or the main clone's folder name; the branch is the one checked out in the
 * directory's worktree. Every crew on the machine is stored under otto's data folder by that key,
 * so OpenCode processes in other worktrees and repositories find each other's crews.
 */

export interface CrewId {
  project: string;
  branch: string;
  /** The worktree that has the branch checked out: where the crew's OpenCode runs. */
  home: string;
  /** The repository's main clone (the previous layout kept the crew under it). */
  root: string;
  /** Whether the project is a repo the user tracks (cross-project messages need both ends tracked). */
  tracked: boolean;
}

/** `<data>/otto/crews`: one folder per project, one per branch inside it. */
export function crewsDir(env: Env): string {
  return path.join(xdgPaths(env).ottoDataDir, "crews");
}

/** A branch name as one path segment (branch names contain `/`). */
export function crewDirOf(id: Pick<CrewId, "project" | "branch">, env: Env): string {
  return path.join(crewsDir(env), encodeURIComponent(id.project), encodeURIComponent(id.branch));
}

/** The worktree a directory is in (the directory itself outside git), real path. */
export async function worktreeTop(directory: string, env: Env): Promise<string> {
  let top = path.resolve(directory);
  try {
    const result = await runGit(["rev-parse", "--show-toplevel"], { cwd: directory, env });
    if (result.exitCode === 0 && result.stdout.trim()) top = result.stdout.trim();
  } catch {
    // Not git: the directory itself.
  }
  return fs.realpath(top).catch(() => top);
}

/** Where a directory's crew works, from git: stable while the worktree keeps its branch, so a process keeps it. */
export type CrewPlace = Pick<CrewId, "root" | "home" | "branch">;

export async function crewPlaceOf(directory: string, env: Env): Promise<CrewPlace> {
  const root = await findCrewRoot(directory, env);
  const home = await worktreeTop(directory, env);
  const branch = (await currentBranch(home, { env }).catch(() => undefined)) ?? "HEAD";
  return { root, home, branch };
}

/**
 * The project's name and whether it is tracked, from the user's config as it is now: `/otto-repo
 * add` makes a project addressable from the next look on, in every process (a few small file reads).
 */
export async function crewProjectOf(directory: string, place: CrewPlace, env: Env): Promise<Pick<CrewId, "project" | "tracked">> {
  try {
    const loaded = await loadConfig({ directory, env });
    const repo = await findRepo(loaded.config.repos, { cwd: directory, git: { env } });
    return { project: repo.name, tracked: true };
  } catch {
    // Not tracked (or no readable config): known by its folder's name, addressable only inside its project.
    return { project: path.basename(place.root), tracked: false };
  }
}

export async function crewIdOf(directory: string, env: Env): Promise<CrewId> {
  const place = await crewPlaceOf(directory, env);
  return { ...place, ...(await crewProjectOf(directory, place, env)) };
}
