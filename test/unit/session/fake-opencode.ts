import type { AssistantMessage, Event, Part } from "@opencode-ai/sdk";
import { EventBus, silentLogger, type Logger } from "../../../src/core/index.ts";
import type { Clock, ModelRef, PromptBody, SessionClient, SessionMessage, TurnReply } from "../../../src/session/index.ts";

/*
 * A small in-memory stand-in for OpenCode's session API (the model is the only remote thing here).
 * Each prompt is answered by a handler that says what the "model" does: reply with text, fail,
 * answer from another model, or hang. Sessions keep their messages so dialog() and the idle
 * fallback read real-looking data.
 */

export interface PromptCall {
  sessionID: string;
  directory?: string;
  body: PromptBody;
}

export interface FakeTurn {
  text?: string;
  /** Parts before the text (tool calls, …). */
  parts?: Part[];
  /** The model the reply claims to come from (default: the requested one). */
  model?: ModelRef;
  agent?: string;
  error?: AssistantMessage["error"];
  /** OpenCode answers 4xx/5xx with this body. */
  httpError?: unknown;
  /** The HTTP call never returns (the message is still recorded unless `silent`). */
  hang?: boolean;
  silent?: boolean;
}

export type Handler = (call: PromptCall, fake: FakeOpencode) => FakeTurn | Promise<FakeTurn>;

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${(++counter).toString().padStart(4, "0")}`;

export function textPart(sessionID: string, messageID: string, text: string): Part {
  return { id: nextId("prt"), sessionID, messageID, type: "text", text };
}

export class FakeOpencode {
  readonly bus = new EventBus();
  readonly sessions = new Map<string, { directory?: string; parentID?: string; title?: string; messages: SessionMessage[] }>();
  readonly prompts: PromptCall[] = [];
  readonly aborted: string[] = [];
  readonly deleted: string[] = [];
  /** Listeners currently subscribed through `events`. */
  listeners = 0;
  inFlight = 0;
  maxInFlight = 0;

  constructor(public handler: Handler = () => ({ text: "ok" })) {}

  readonly events = {
    on: (listener: (event: Event) => void) => {
      this.listeners++;
      const off = this.bus.on(listener);
      return () => {
        this.listeners--;
        off();
      };
    },
  };

  readonly client: SessionClient = {
    session: {
      create: ({ body, query }) => {
        const id = nextId("ses");
        this.sessions.set(id, { directory: query?.directory, parentID: body?.parentID, title: body?.title, messages: [] });
        return Promise.resolve({ data: { id } });
      },
      prompt: async ({ path, body, query }) => {
        if (!body) throw new Error("prompt without body");
        const call = { sessionID: path.id, directory: query?.directory, body };
        this.prompts.push(call);
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        try {
          const turn = await this.handler(call, this);
          if (turn.httpError !== undefined) return { error: turn.httpError };
          const reply = this.record(call, turn);
          if (turn.hang) return await new Promise<never>(() => undefined);
          return { data: reply };
        } finally {
          this.inFlight--;
        }
      },
      messages: ({ path }) => Promise.resolve({ data: this.sessions.get(path.id)?.messages ?? [] }),
      abort: ({ path }) => {
        this.aborted.push(path.id);
        return Promise.resolve({ data: true });
      },
      delete: ({ path }) => {
        this.deleted.push(path.id);
        this.sessions.delete(path.id);
        return Promise.resolve({ data: true });
      },
    },
  };

  /** Stores the user and assistant messages of one turn, as OpenCode would. */
  record(call: PromptCall, turn: FakeTurn): TurnReply {
    const session = this.sessions.get(call.sessionID);
    if (!session || turn.silent) return this.reply(call, turn, "msg_none");
    const userID = nextId("msg");
    session.messages.push({
      info: {
        id: userID,
        sessionID: call.sessionID,
        role: "user",
        time: { created: Date.now() },
        agent: call.body.agent,
        model: call.body.model,
      },
      parts: call.body.parts.map((p) => textPart(call.sessionID, userID, p.text)),
    });
    const reply = this.reply(call, turn, userID);
    session.messages.push(reply);
    return reply;
  }

  reply(call: PromptCall, turn: FakeTurn, parentID: string): TurnReply {
    const id = nextId("msg");
    const model = turn.model ?? call.body.model;
    const now = Date.now();
    const info: AssistantMessage = {
      id,
      sessionID: call.sessionID,
      role: "assistant",
      time: { created: now, completed: now },
      parentID,
      providerID: model.providerID,
      modelID: model.modelID,
      mode: turn.agent ?? call.body.agent,
      path: { cwd: call.directory ?? "/", root: call.directory ?? "/" },
      cost: 0,
      tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
      error: turn.error,
    };
    const parts = [...(turn.parts ?? []), ...(turn.text === undefined ? [] : [textPart(call.sessionID, id, turn.text)])];
    return { info, parts };
  }

  emit(event: Event): void {
    this.bus.emit(event);
  }
}

/** Real timers that remember which are still pending, to prove nothing leaks. */
export function trackingClock(): Clock & { pending: () => number } {
  const live = new Set<ReturnType<typeof setTimeout>>();
  return {
    now: () => Date.now(),
    setTimeout(callback, ms) {
      const handle = setTimeout(() => {
        live.delete(handle);
        callback();
      }, ms);
      live.add(handle);
      return handle;
    },
    clearTimeout(handle) {
      live.delete(handle as ReturnType<typeof setTimeout>);
      clearTimeout(handle as ReturnType<typeof setTimeout>);
    },
    pending: () => live.size,
  };
}

export const MODEL: ModelRef = { providerID: "acme", modelID: "big-1" };
export const OTHER: ModelRef = { providerID: "acme", modelID: "small-2" };
export const log: Logger = silentLogger;
