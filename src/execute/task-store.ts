import fs from "node:fs/promises";
import { OttoError, realTarget, withFileLock, writeFileAtomic, firstLine } from "../core/index.ts";
import { formatProblems, parseTasks, updateTaskStatus, validateTasks, type TaskList, type TaskStatus } from "../spec/index.ts";

/** Reads tasks.md and refuses to run on one that does not parse or validate (ids, dependencies, groups). */
export function parseTaskFile(text: string, slug: string): TaskList {
  const parsed = parseTasks(text);
  const problems = parsed.problems.length > 0 ? parsed.problems : validateTasks(parsed.tasks);
  if (problems.length > 0) {
    throw new OttoError(
      "invalid_tasks",
      `tasks.md of ${slug} has problems, so nothing was run:\n${formatProblems(problems, "tasks.md")}`,
      `Fix tasks.md by hand, or run /otto-spec task generate --spec ${slug}`,
    );
  }
  return parsed.tasks;
}

export interface StoreOptions {
  /** Milliseconds each write waited for the file lock, for the bench. */
  onLockWait?: (ms: number) => void;
  now?: () => number;
}

/**
 * tasks.md as the run's source of truth. Every status change is one read-modify-write under the
 * file's lock (`tasks.md.lock`, shared with the spec pipeline and with other processes), written
 * to a temp file and renamed over, changing only the task's status line (and extra fields such
 * as `last_error`). Writes from one run are queued in order first, so parallel tasks of one
 * process do not fight over the lock; the lock is for other processes and the user's tools.
 */
export class TaskStore {
  #queue: Promise<unknown> = Promise.resolve();
  #list: TaskList;

  private constructor(
    readonly file: string,
    readonly slug: string,
    list: TaskList,
    private readonly options: StoreOptions,
  ) {
    this.#list = list;
  }

  static async open(file: string, slug: string, options: StoreOptions = {}): Promise<TaskStore> {
    const text = await fs.readFile(file, "utf8");
    return new TaskStore(await realTarget(file), slug, parseTaskFile(text, slug), options);
  }

  /** The list as of the last write or read (statuses of this run's changes included). */
  get list(): TaskList {
    return this.#list;
  }

  /**
   * Sets one task's status; `extra` sets fields such as `last_error` (one line each). The note
   * of another status (`last_error` of a failed task, `skip_reason` of a skipped one) is removed,
   * so a task that runs again or completes does not carry a stale reason.
   */
  set(id: string, status: TaskStatus, extra: Record<string, string> = {}): Promise<TaskList> {
    const stale = Object.entries(STATUS_NOTES)
      .filter(([key, owner]) => owner !== status && !(key in extra))
      .map(([key]) => key);
    return this.#enqueue(async (text) => updateTaskStatus(text, id, status, singleLineExtras(extra), stale), false);
  }

  /** Re-reads and re-validates the file (the user may edit it during a run). */
  reload(): Promise<TaskList> {
    return this.#enqueue(async (text) => text, true);
  }

  #enqueue(edit: (text: string) => Promise<string>, validate: boolean): Promise<TaskList> {
    const run = this.#queue.then(() => this.#write(edit, validate));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #write(edit: (text: string) => Promise<string>, validate: boolean): Promise<TaskList> {
    const now = this.options.now ?? Date.now;
    const asked = now();
    return withFileLock(this.file, async () => {
      this.options.onLockWait?.(now() - asked);
      const current = await fs.readFile(this.file, "utf8");
      const next = await edit(current);
      if (next !== current) await writeFileAtomic(this.file, next, 0o644);
      // updateTaskStatus changes status lines and extra fields only: the list stays valid, so a
      // plain parse is enough after a status change (the file was validated when it was opened).
      this.#list = validate ? parseTaskFile(next, this.slug) : parseTasks(next).tasks;
      return this.#list;
    });
  }
}

/** Extra fields that explain a status, by the status they belong to: a completed task's are its evidence. */
const STATUS_NOTES: Readonly<Record<string, TaskStatus>> = {
  last_error: "failed",
  skip_reason: "skipped",
  changed_files: "completed",
  no_changes: "completed",
  shared_changes: "completed",
  checks: "completed",
  commit: "completed",
  acceptance: "completed",
};

/** Extra fields are single-line values in tasks.md; a multi-line error keeps its first line, cut short. */
function singleLineExtras(extra: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(extra).map(([key, value]) => {
      const line = firstLine(value);
      return [key, line.length > 300 ? `${line.slice(0, 297)}...` : line];
    }),
  );
}
