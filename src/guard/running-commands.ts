import { blocked } from "./blocked.ts";

/*
 * The guarded shell commands running now, and the wait of a file tool for them. A file tool is
 * judged by where its path resolves, then OpenCode opens it: a sandboxed process alive in between
 * could turn a folder on the way into a link. Sandboxed processes live only while their command
 * runs (bubblewrap's PID namespace ends with it), so with none running nothing can flip the path.
 */

/** How long a file tool waits for the tree's running shell commands. */
export const QUIET_WAIT_MS = 120_000;
const QUIET_POLL_MS = 50;
/** Past OpenCode's longest bash timeout: a command this old whose end was never reported is not waited for. */
export const STALE_COMMAND_MS = 15 * 60_000;

export interface RunningCommandsDeps {
  now: () => number;
  /** Waits between two looks (tests pass one that moves their clock). */
  sleep?: (ms: number) => Promise<void>;
}

export class RunningCommands {
  /** By tool call id: when each started, in which session. */
  readonly #running = new Map<string, { at: number; sessionID: string }>();

  constructor(private readonly deps: RunningCommandsDeps) {}

  /** A guarded shell command about to run. */
  started(callID: string, sessionID: string): void {
    this.#running.set(callID, { at: this.deps.now(), sessionID });
  }

  /** Its after-hook came, or OpenCode reported its end (a call denied at its ask gets no after-hook). */
  ended(callID: string): void {
    this.#running.delete(callID);
  }

  /** The session's turn is over: none of its shell commands still runs. */
  sessionEnded(sessionID: string): void {
    for (const [id, running] of this.#running) if (running.sessionID === sessionID) this.#running.delete(id);
  }

  /** How many are taken as running now. */
  get size(): number {
    return this.#running.size;
  }

  /**
   * Waits until none runs. Bounded: a command running past the wait refuses the tool; one older
   * than the bash tool's longest timeout is taken as gone (its end was not reported).
   */
  async quiet(tool: string): Promise<void> {
    const started = this.deps.now();
    const sleep = this.deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    for (;;) {
      const now = this.deps.now();
      for (const [id, { at }] of this.#running) if (now - at > STALE_COMMAND_MS) this.#running.delete(id);
      if (this.#running.size === 0) return;
      if (now - started > QUIET_WAIT_MS)
        throw blocked(
          `${tool} while a shell command of this session's tree is still running (wait for it to end, then call ${tool} again)`,
        );
      await sleep(QUIET_POLL_MS);
    }
  }
}
