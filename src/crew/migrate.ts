import fs from "node:fs/promises";
import path from "node:path";
import type { Env } from "../core/index.ts";
import { worktreeTop, type CrewId } from "./identity.ts";
import { crewPaths, type CrewPaths } from "./paths.ts";
import { listCrews } from "./registry.ts";
import { readCrew } from "./store.ts";

/*
 * The previous layout kept one crew per repository in `<main clone>/.otto/crew/`. It becomes the
 * crew of the branch its orchestrator worked on (the main clone's when none is recorded), moved
 * once into otto's data folder the first time that crew is opened. Nothing is left behind to read
 * twice: the files are moved, not copied.
 */

async function move(from: string, to: string): Promise<void> {
  try {
    await fs.rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    // Another file system: copy, then remove what otto wrote.
    await fs.copyFile(from, to);
    await fs.unlink(from);
  }
}

/** Moves the previous layout's crew of `id.root` into `target` when it belongs to this branch and `target` has none. */
export async function migrateLegacyCrew(id: CrewId, target: CrewPaths, env: Env): Promise<boolean> {
  const legacy = crewPaths(id.root);
  const exists = (file: string) =>
    fs.access(file).then(
      () => true,
      () => false,
    );
  if ((await exists(target.crew)) || !(await exists(legacy.crew))) return false;
  const state = await readCrew(legacy);
  // The orchestrator's directory, when it still exists, says which branch's crew it was.
  const recorded = state.orchestrator?.directory;
  const owner = recorded && (await exists(recorded)) ? recorded : id.root;
  if ((await worktreeTop(owner, env)) !== id.home) return false;
  await fs.mkdir(target.dir, { recursive: true, mode: 0o700 });
  // The stream and archive first: crew.json's arrival is what makes the new crew exist.
  await move(legacy.messages, target.messages);
  await move(legacy.archive, target.archive);
  await move(legacy.crew, target.crew);
  // The folder otto made, when nothing else is in it (a lock being released, say).
  await fs.rmdir(legacy.dir).catch(() => undefined);
  return true;
}

/**
 * A worktree's crew is kept under its project's name, which changes when the repository becomes
 * tracked under another name (`/otto-repo add` names it from the remote), is renamed or untracked.
 * When `target` has no crew yet, the crew recorded for the same worktree and branch under another
 * name moves there (one rename of its folder), so its agents and messages follow the project.
 */
export async function adoptRenamedCrew(home: string, branch: string, target: CrewPaths, env: Env): Promise<boolean> {
  const exists = await fs.access(target.crew).then(
    () => true,
    () => false,
  );
  if (exists) return false;
  const previous = (await listCrews(env)).find((c) => c.state.id?.home === home && c.branch === branch && c.paths.dir !== target.dir);
  if (!previous) return false;
  await fs.mkdir(path.dirname(target.dir), { recursive: true, mode: 0o700 });
  await fs.rename(previous.paths.dir, target.dir);
  // The project's folder, when that was its last branch.
  await fs.rmdir(path.dirname(previous.paths.dir)).catch(() => undefined);
  return true;
}
