import type { Event } from "@opencode-ai/sdk";
import type { Logger } from "../core/index.ts";

/** What became of one delivery attempt. */
export type Delivery = "sent" | "nothing" | "busy";

/** One prompt waiting for its session. */
export interface GateItem {
  /** Two items with the same key queued (or one being sent) at once are duplicates: the later one is dropped. */
  key: string;
  /** Lower goes first (the seq of the message that caused it), so wake-ups keep the stream's order. */
  order: number;
  /**
   * Builds and sends the prompt. "nothing": there turned out to be nothing to say (dropped);
   * "busy": OpenCode runs a turn there after all (someone typed; the item waits for the next idle).
   * Check for busy as late as possible, just before sending.
   */
  deliver(): Promise<Delivery>;
}

interface SessionGate {
  /** OpenCode said the session is running a turn (session.status), or a delivery found it busy. */
  busy: boolean;
  /** We sent a prompt and have not seen the session go idle since. */
  awaitingIdle: boolean;
  sentAt: number;
  /** Idle events seen so far: tells whether one arrived while a delivery was under way. */
  idles: number;
  sending: string | undefined;
  queue: GateItem[];
}

export interface GateOptions {
  log: Logger;
  now?: () => number;
  /**
   * After this long without the idle event that should follow a prompt, the next enqueue stops
   * waiting for it (an event missed while OpenCode restarted an instance); the delivery's own
   * busy check then decides. Long turns are fine: that check says busy and the gate keeps waiting.
   */
  stuckMs?: number;
}

/**
 * Every prompt otto sends into a session it does not own the turn of (crew agents, the
 * orchestrator) goes through the session's gate: never two at once, queued while OpenCode runs a
 * turn there, delivered in order when it goes idle, duplicates dropped.
 */
export class PromptGates {
  readonly #sessions = new Map<string, SessionGate>();
  readonly #now: () => number;
  readonly #stuckMs: number;

  constructor(private readonly options: GateOptions) {
    this.#now = options.now ?? Date.now;
    this.#stuckMs = options.stuckMs ?? 10 * 60_000;
  }

  /** Feed every OpenCode event here: it is how the gates learn that a session went busy or idle. */
  observe(event: Event): void {
    if (event.type !== "session.status" && event.type !== "session.idle") return;
    const gate = this.#sessions.get(event.properties.sessionID);
    if (!gate) return;
    const idle = event.type === "session.idle" || event.properties.status.type === "idle";
    gate.busy = !idle;
    if (idle) {
      gate.awaitingIdle = false;
      gate.idles++;
      this.#pump(event.properties.sessionID);
    }
  }

  enqueue(sessionID: string, item: GateItem): void {
    let gate = this.#sessions.get(sessionID);
    if (!gate) {
      gate = { busy: false, awaitingIdle: false, sentAt: 0, idles: 0, sending: undefined, queue: [] };
      this.#sessions.set(sessionID, gate);
    }
    if (gate.sending === item.key || gate.queue.some((queued) => queued.key === item.key)) return;
    const at = gate.queue.findIndex((queued) => queued.order > item.order);
    gate.queue.splice(at === -1 ? gate.queue.length : at, 0, item);
    if ((gate.awaitingIdle || gate.busy) && this.#now() - gate.sentAt > this.#stuckMs) {
      gate.awaitingIdle = false;
      gate.busy = false;
    }
    this.#pump(sessionID);
  }

  /** Drops what is queued for a session (its agent was killed or archived). */
  clear(sessionID: string): void {
    const gate = this.#sessions.get(sessionID);
    if (gate) gate.queue = [];
  }

  pending(sessionID: string): number {
    return this.#sessions.get(sessionID)?.queue.length ?? 0;
  }

  #pump(sessionID: string): void {
    this.#drain(sessionID).catch((error: unknown) =>
      this.options.log.log("warn", `crew prompt gate of ${sessionID} failed`, {
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  async #drain(sessionID: string): Promise<void> {
    const gate = this.#sessions.get(sessionID);
    if (!gate || gate.sending !== undefined) return;
    while (gate.queue.length > 0 && !gate.awaitingIdle && !gate.busy) {
      const item = gate.queue.shift();
      if (!item) break;
      const idles = gate.idles;
      gate.sending = item.key;
      // Set before sending: the idle ending this turn can arrive before deliver() resolves.
      gate.awaitingIdle = true;
      gate.sentAt = this.#now();
      let result: Delivery = "nothing";
      try {
        result = await item.deliver();
      } catch (error) {
        this.options.log.log("warn", `could not deliver a crew prompt to ${sessionID}`, {
          error: error instanceof Error ? error.message : String(error),
        });
      } finally {
        gate.sending = undefined;
      }
      if (result === "sent") continue;
      gate.awaitingIdle = false;
      if (result === "busy") {
        gate.queue.unshift(item);
        // Unless the turn it found has already ended, wait for its idle event.
        if (gate.idles === idles) gate.busy = true;
      }
    }
  }
}

const REGISTRY = Symbol.for("opencode-otto.crew.gates");

/**
 * The gates of this process. A session's gate must be one object however many plugin instances
 * OpenCode runs (an agent in a worktree is an instance of its own, and its wake-ups go to the
 * orchestrator's session), so this is the one piece of crew state kept per process, not per
 * instance; on globalThis so that two copies of the module still share it.
 */
export function processGates(log: Logger): PromptGates {
  const holder = globalThis as { [REGISTRY]?: PromptGates };
  holder[REGISTRY] ??= new PromptGates({ log });
  return holder[REGISTRY];
}
