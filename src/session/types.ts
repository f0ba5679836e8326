import type { AssistantMessage, Event, Message, Part } from "@opencode-ai/sdk";
import type { Env, Logger } from "../core/index.ts";
import type { renderPrompt } from "../prompts/index.ts";

/** What the SDK's methods resolve to (hey-api "fields" style): data on success, error otherwise. */
type Result<T> = Promise<{ data?: T; error?: unknown }>;
type Directory = { directory?: string };

export interface PromptBody {
  agent: string;
  model: { providerID: string; modelID: string };
  system?: string;
  parts: Array<{ type: "text"; text: string }>;
}

export interface SessionMessage {
  info: Message;
  parts: Part[];
}

/**
 * The slice of OpenCode's v1 client (`PluginInput["client"]`) the session layer uses. The real
 * client satisfies it (the type checker checks `createSessionRunner`); tests pass small fakes.
 */
export interface SessionClient {
  session: {
    create(options: { body?: { parentID?: string; title?: string }; query?: Directory }): Result<{ id: string }>;
    prompt(options: { path: { id: string }; body?: PromptBody; query?: Directory }): Result<TurnReply>;
    messages(options: { path: { id: string }; query?: Directory & { limit?: number } }): Result<SessionMessage[]>;
    abort(options: { path: { id: string }; query?: Directory }): Result<boolean>;
    delete(options: { path: { id: string }; query?: Directory }): Result<boolean>;
  };
}

/** What OpenCode returns for one finished turn. */
export interface TurnReply {
  info: AssistantMessage;
  parts: Part[];
}

export interface EventSource {
  on(listener: (event: Event) => void): () => void;
}

/** Timers passed in so tests can count them (no leaks) and run timeouts in milliseconds. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** src/prompts' `renderPrompt`, injectable so this layer can be tested without prompt files. */
export type PromptRenderer = typeof renderPrompt;

/** Everything the session layer touches: the OpenCode client, its event bus, the log. */
export interface SessionDeps {
  client: SessionClient;
  events: EventSource;
  log: Logger;
  env?: Env;
  clock?: Clock;
  /** Renders the `json-retry` prompt; default: src/prompts' renderPrompt. */
  render?: PromptRenderer;
  /** The runtime's known secrets, redacted from every dialog (read at the time of the call). */
  secrets?: () => readonly string[];
}
