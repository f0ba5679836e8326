import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { formatError, readTextIfExists, redact, writeFileAtomic, type Logger } from "../core/index.ts";
import type { SessionClient } from "../session/index.ts";

/** Only ids: nothing a prompt or a reply said is saved. */
const SessionsRecord = z.object({ sessions: z.array(z.string().min(1)) });

/** `.git/otto-execute-<slug>.sessions.json`, beside the run lock: per working tree, never committed. */
export function runSessionsFile(gitDir: string, slug: string): string {
  return path.join(gitDir, `otto-execute-${slug}.sessions.json`);
}

/**
 * The child sessions a run has open, kept on disk so a run killed mid-phase (SIGKILL, no finally)
 * does not leave them in OpenCode's session list forever: the next run deletes the ones still
 * listed before it starts. Bookkeeping never fails the run: a write that fails is only logged.
 */
export class RunSessions {
  readonly #ids = new Set<string>();
  #writes: Promise<void> = Promise.resolve();
  #queued: Promise<void> | undefined;

  private constructor(
    readonly file: string,
    private readonly log: Logger,
    ids: Iterable<string> = [],
  ) {
    for (const id of ids) this.#ids.add(id);
  }

  /** Call once the session exists and before prompting it, so a crash from then on is covered. */
  add(id: string): Promise<void> {
    this.#ids.add(id);
    return this.#save();
  }

  /** Call once the session is deleted. */
  remove(id: string): Promise<void> {
    if (!this.#ids.delete(id)) return this.#writes;
    return this.#save();
  }

  /**
   * Writes in order, each with the ids of its time; the file goes when no session is open. A write
   * that has not started yet will carry every id added meanwhile, so it is shared rather than
   * repeated: a phase's tasks opening sessions at once wait for one write, not for a queue of them.
   */
  #save(): Promise<void> {
    if (this.#queued) return this.#queued;
    this.#writes = this.#queued = this.#writes.then(async () => {
      this.#queued = undefined;
      try {
        if (this.#ids.size) await writeFileAtomic(this.file, `${JSON.stringify({ sessions: [...this.#ids] }, null, 2)}\n`, 0o600);
        else await fs.rm(this.file, { force: true });
      } catch (error) {
        this.log.log("warn", `could not record the run's sessions in ${this.file}`, { error: formatError(error) });
      }
    });
    return this.#writes;
  }

  /**
   * Opens the record of a run. Sessions a killed run left listed are deleted first (ones OpenCode
   * no longer has are dropped); one whose deletion fails stays listed for the next run.
   */
  static async resume(
    file: string,
    deps: { client: SessionClient; directory: string; log: Logger },
  ): Promise<{ sessions: RunSessions; cleaned: number }> {
    const left = await readRecord(file, deps.log);
    const kept: string[] = [];
    let cleaned = 0;
    for (const id of left) {
      const outcome = await deleteSession(deps, id);
      if (outcome === "deleted") cleaned++;
      else if (outcome === "failed") kept.push(id);
    }
    const sessions = new RunSessions(file, deps.log, kept);
    if (left.length) await sessions.#save();
    return { sessions, cleaned };
  }
}

async function readRecord(file: string, log: Logger): Promise<string[]> {
  try {
    const text = await readTextIfExists(file);
    return text === undefined ? [] : SessionsRecord.parse(JSON.parse(text)).sessions;
  } catch (error) {
    // Written by rename, so never half a file; an unreadable one is not worth stopping the run.
    log.log("warn", `ignoring ${file}: not a readable record of sessions`, { error: formatError(error) });
    return [];
  }
}

async function deleteSession(
  deps: { client: SessionClient; directory: string; log: Logger },
  id: string,
): Promise<"deleted" | "gone" | "failed"> {
  try {
    const result = await deps.client.session.delete({ path: { id }, query: { directory: deps.directory } });
    if (result.error === undefined) return "deleted";
    if (notFound(result.error)) return "gone";
    deps.log.log("warn", `could not delete session ${id} left by an earlier run`, { error: redact(JSON.stringify(result.error)) });
  } catch (error) {
    deps.log.log("warn", `could not delete session ${id} left by an earlier run`, { error: formatError(error) });
  }
  return "failed";
}

/** OpenCode answers 404 with `{ name: "NotFoundError", data: { message } }`. */
function notFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "NotFoundError";
}
