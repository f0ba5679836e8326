import path from "node:path";
import type { Env } from "../core/index.ts";
import { runGit } from "../workspace/index.ts";

export interface CrewPaths {
  /** The worktree the crew works in (its config, notifications, specs); in the previous layout the main clone. */
  root: string;
  dir: string;
  /** Agents, cursors, orchestrator; also the lock every write takes. */
  crew: string;
  /** The shared stream, JSON Lines. */
  messages: string;
  /** Archived agents, JSON Lines. */
  archive: string;
  /** Which crew this is (identity.ts): written into crew.json by every change. Unset in the previous layout and unit tests. */
  id?: { project: string; branch: string; home: string; tracked?: boolean };
}

/** `dir`: where the files are (otto's data folder, identity.ts); by default the previous layout's `<root>/.otto/crew`. */
export function crewPaths(root: string, dir = path.join(root, ".otto", "crew")): CrewPaths {
  return {
    root,
    dir,
    crew: path.join(dir, "crew.json"),
    messages: path.join(dir, "messages.jsonl"),
    archive: path.join(dir, "archive.jsonl"),
  };
}

async function gitLine(args: string[], cwd: string, env: Env): Promise<string | undefined> {
  try {
    const result = await runGit(args, { cwd, env });
    return result.exitCode === 0 ? result.stdout.trim() || undefined : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where a directory's crew lives: the root of the repository's main clone, found through git's
 * common dir, so an agent working in a worktree (an OpenCode instance of its own) reads and writes
 * the same crew as the orchestrator. Outside git: the directory itself.
 */
export async function findCrewRoot(directory: string, env: Env = process.env): Promise<string> {
  const common = await gitLine(["rev-parse", "--path-format=absolute", "--git-common-dir"], directory, env);
  if (common && path.basename(common) === ".git") return path.dirname(common);
  return (await gitLine(["rev-parse", "--show-toplevel"], directory, env)) ?? path.resolve(directory);
}
