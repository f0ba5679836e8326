import fs from "node:fs/promises";
import path from "node:path";
import type { SessionWrites, TimeWindow } from "../session/index.ts";
import { creditChanges, type Credit, type SessionRecord } from "./attribution.ts";

/**
 * The sessions of one parallel phase, each under its task, and what their tools changed
 * (attribution.ts decides; this reads the session layer's record and the file system). Made by
 * run-phase.ts only when tasks of the phase can run at the same time: a task that runs alone keeps
 * its snapshot diff. Released when the phase's tasks are done.
 */
export class PhaseFiles {
  readonly #sessions = new Map<string, string>();

  constructor(
    private readonly writes: SessionWrites,
    private readonly repoRoot: string,
  ) {}

  /** The clock the tool hooks are timed by. */
  now(): number {
    return this.writes.now();
  }

  /** A session of `task`, recorded from before its first prompt. */
  watch(task: string, sessionID: string): void {
    this.#sessions.set(sessionID, task);
    this.writes.watch(sessionID);
  }

  /** The session answered: its turn is over. */
  ended(sessionID: string | undefined): void {
    if (sessionID) this.writes.end(sessionID);
  }

  /** The task's share of `changed`, the paths that changed over `window`. */
  async credit(task: string, changed: readonly string[], window: TimeWindow): Promise<Credit> {
    const realRoot = await fs.realpath(this.repoRoot).catch(() => this.repoRoot);
    const records: SessionRecord[] = [];
    for (const [id, owner] of this.#sessions) {
      const activity = this.writes.activity(id);
      if (!activity) continue;
      const files = await Promise.all(activity.files.map((file) => repoPath(this.repoRoot, realRoot, file)));
      records.push({
        task: owner,
        files: files.filter((f): f is string => f !== undefined),
        shell: activity.shell,
        active: activity.active,
        calls: activity.calls,
      });
    }
    return creditChanges(task, changed, window, records);
  }

  release(): void {
    for (const id of this.#sessions.keys()) this.writes.release(id);
    this.#sessions.clear();
  }
}

/**
 * `file` as the snapshots name it: relative to the repository, `/`-separated, through symlinks
 * (a path written through a link names the file it reached). Undefined outside the repository.
 * A file deleted since is resolved through its nearest existing folder.
 */
export async function repoPath(root: string, realRoot: string, file: string): Promise<string | undefined> {
  const absolute = path.resolve(root, file);
  let real: string | undefined;
  const rest: string[] = [];
  for (let dir = absolute; real === undefined;) {
    real = await fs.realpath(dir).catch(() => undefined);
    if (real !== undefined) break;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    rest.unshift(path.basename(dir));
    dir = parent;
  }
  const relative = path.relative(realRoot, path.join(real ?? absolute, ...(real === undefined ? [] : rest)));
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join("/");
}
