import { isOttoError } from "../core/index.ts";

/** The builder child session as the loop uses it (src/session's ChildSession behind build-deps.ts). */
export interface Builder {
  id: string;
  /** One turn; resolves with the reply's text. Rejects with OttoError `session_aborted` when the turn was aborted. */
  prompt(text: string): Promise<{ text: string }>;
  abort(): Promise<void>;
  /** How many user messages the session holds (otto's prompts and anyone else's). */
  userMessages(): Promise<number>;
}

export type TurnOutcome =
  | { kind: "reply"; text: string }
  /** The stop file appeared during the turn and otto aborted it. */
  | { kind: "stopped" }
  /** Aborted by someone else (the user in the TUI, another client). */
  | { kind: "aborted" }
  /** The turn hit spec.task_timeout: counted as a turn that did nothing. */
  | { kind: "timeout" }
  /** Otto stopped the session: it made the same tool call over and over (limits.repeated_tool_calls). */
  | { kind: "looped"; reason: string }
  /**
   * The last reply came from another agent or model: someone else's message was answered after
   * otto's (the loop checks that and pauses, or rethrows `error`).
   */
  | { kind: "foreign"; error: unknown };

export interface TurnOptions {
  stopRequested: () => Promise<boolean>;
  /** How often the stop file is looked for during a turn. */
  pollMs: number;
  /** The tool's signal: its abort is a cancellation, not an interruption. */
  signal?: AbortSignal;
}

/** Prompts one turn while watching for a stop request, and says how the turn ended. */
export async function runTurn(builder: Builder, text: string, options: TurnOptions): Promise<TurnOutcome> {
  let stopped = false;
  let checking = false;
  const timer = setInterval(() => {
    if (checking || stopped) return;
    checking = true;
    void options
      .stopRequested()
      .then(async (yes) => {
        if (!yes) return;
        stopped = true;
        await builder.abort();
      })
      // A failed look or abort is tried again at the next tick.
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }, options.pollMs);
  try {
    const reply = await builder.prompt(text);
    return stopped ? { kind: "stopped" } : { kind: "reply", text: reply.text };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    if (stopped) return { kind: "stopped" };
    if (isOttoError(error) && error.code === "session_aborted") return { kind: "aborted" };
    if (isOttoError(error) && error.code === "session_timeout") return { kind: "timeout" };
    if (isOttoError(error) && error.code === "tool_loop") return { kind: "looped", reason: error.message };
    if (isOttoError(error) && (error.code === "agent_mismatch" || error.code === "model_mismatch")) return { kind: "foreign", error };
    throw error;
  } finally {
    clearInterval(timer);
  }
}
