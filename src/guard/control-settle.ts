import type { Env } from "../core/paths.ts";
import type { Logger } from "../core/log.ts";
import type { ControlWatch, runGit, settleControls, settledLine } from "../workspace/index.ts";

/*
 * The look after a sandboxed shell command: its look at the tree's control paths before it ran
 * (control-watch.ts) is compared when its after-hook comes, and the session's first look again
 * when the session ends or goes idle (a call whose after-hook never came, a process that outlived
 * its command under Seatbelt). What it left is quarantined, moved refs put back.
 */

/** Settles one look; the line saying what was undone, if any. Never throws. */
export type Settle = (watch: ControlWatch, pathsOnly: boolean) => Promise<string | undefined>;

export class ControlWatches {
  /** By call: the look before the call ran. */
  readonly #calls = new Map<string, { sessionID: string; watch: ControlWatch }>();
  /** By session: the look at each root, taken at its first sandboxed call there. */
  readonly #sessions = new Map<string, ControlWatch[]>();

  constructor(private readonly settle: Settle) {}

  /** True once the session has a look at `root` (its first look walks the whole tree: control-watch.ts `nested`). */
  seen(sessionID: string, root: string): boolean {
    return this.#sessions.get(sessionID)?.some((w) => w.root === root) ?? false;
  }

  /** A sandboxed call about to run, with the look taken before it. */
  noted(call: { sessionID: string; callID?: string }, watch: ControlWatch): void {
    if (call.callID !== undefined) this.#calls.set(call.callID, { sessionID: call.sessionID, watch });
    const session = this.#sessions.get(call.sessionID) ?? [];
    if (!session.some((w) => w.root === watch.root)) this.#sessions.set(call.sessionID, [...session, watch]);
  }

  /** The call's after-hook: what it left is settled; the line the session reads, if any. */
  async afterCall(callID: string): Promise<string | undefined> {
    const pending = this.#calls.get(callID);
    if (!pending) return undefined;
    this.#calls.delete(callID);
    return this.settle(pending.watch, false);
  }

  /** The session ended or went idle: each of its first looks is settled (paths only: its refs may have moved by its own commits since). */
  async sessionEnded(sessionID: string): Promise<void> {
    // A call whose after-hook never came is covered by the session's first look, taken before it.
    for (const [id, pending] of this.#calls) if (pending.sessionID === sessionID) this.#calls.delete(id);
    const watches = this.#sessions.get(sessionID);
    if (!watches) return;
    this.#sessions.delete(sessionID);
    for (const watch of watches) await this.settle(watch, true);
  }
}

export interface SettleDeps {
  env: Env;
  log: Logger;
  /** The workspace's git (loaded on first use: session-guard.ts passes it). */
  load: () => Promise<{ settleControls: typeof settleControls; settledLine: typeof settledLine; runGit: typeof runGit }>;
}

/** Quarantines what a sandboxed command left, puts moved refs back (control-watch.ts), and logs the line saying so. */
export function settleWith(deps: SettleDeps): Settle {
  return async (watch, pathsOnly) => {
    try {
      const { settleControls, settledLine, runGit } = await deps.load();
      const env = deps.env;
      const line = settledLine(await settleControls(watch, env, (args, options) => runGit(args, { ...options, env }), { pathsOnly }));
      if (line) deps.log.log("warn", `otto guard: in ${watch.root}, ${line}`);
      return line;
    } catch (error) {
      deps.log.log("warn", "otto guard: could not look at a sandboxed command's tree again", {
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  };
}
