import type { Event } from "@opencode-ai/sdk";
import { redact, type Logger } from "../core/index.ts";
import { abortedError, describeError, errorFromHttp, errorFromProvider, timeoutError, type ErrorContext } from "./errors.ts";
import type { Clock, EventSource, PromptBody, SessionClient, TurnReply } from "./types.ts";

export interface TurnDeps {
  client: SessionClient;
  events: EventSource;
  log: Logger;
  clock: Clock;
}

export interface TurnInput extends ErrorContext {
  directory: string;
  body: PromptBody;
  timeoutMs: number;
  /** After `session.idle`, how long to wait for the HTTP reply before reading the messages instead. */
  graceMs: number;
  signal?: AbortSignal;
}

function isIdle(event: Event, sessionID: string): boolean {
  if (event.type === "session.idle") return event.properties.sessionID === sessionID;
  return event.type === "session.status" && event.properties.sessionID === sessionID && event.properties.status.type === "idle";
}

/** The finished assistant message of this turn, read back from the session (created after `since`). */
async function readLastReply(deps: TurnDeps, input: TurnInput, since: number): Promise<TurnReply | undefined> {
  const result = await deps.client.session.messages({ path: { id: input.sessionID }, query: { directory: input.directory } });
  const last = result.data?.at(-1);
  if (!last || last.info.role !== "assistant") return undefined;
  if (last.info.time.created < since || last.info.time.completed === undefined) return undefined;
  return { info: last.info, parts: last.parts };
}

/**
 * Sends one prompt and waits for the turn to end. `session.prompt` blocks until the turn is over,
 * but it is raced against: the timeout (aborts the child), the caller's AbortSignal (aborts the
 * child), `session.error` for this session, and `session.idle` (if the HTTP reply has not arrived
 * `graceMs` later, the reply is read from the session's messages). Every timer, listener and
 * subscription is released when the race settles.
 */
export function runTurn(deps: TurnDeps, input: TurnInput): Promise<TurnReply> {
  const { client, events, log, clock } = deps;
  const { sessionID, directory } = input;
  const ctx: ErrorContext = { sessionID, model: input.model };
  const since = clock.now();

  return new Promise<TurnReply>((resolve, reject) => {
    const cleanups: Array<() => void> = [];
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      for (const cleanup of cleanups.splice(0)) cleanup();
      done();
    };
    const fail = (error: Error) => settle(() => reject(error));
    const succeed = (reply: TurnReply) => settle(() => resolve(reply));
    const abortChild = () => {
      client.session.abort({ path: { id: sessionID }, query: { directory } }).then(
        (result) => {
          if (result.error !== undefined)
            log.log("warn", `could not abort session ${sessionID}`, { error: redact(describeError(result.error)) });
        },
        (error: unknown) => log.log("warn", `could not abort session ${sessionID}`, { error: redact(describeError(error)) }),
      );
    };

    if (input.signal?.aborted) {
      fail(abortedError(ctx));
      return;
    }

    const timer = clock.setTimeout(() => {
      abortChild();
      fail(timeoutError(input.timeoutMs, ctx));
    }, input.timeoutMs);
    cleanups.push(() => clock.clearTimeout(timer));

    let grace: unknown;
    cleanups.push(() => {
      if (grace !== undefined) clock.clearTimeout(grace);
    });
    const recover = () => {
      grace = undefined;
      readLastReply(deps, input, since).then(
        (reply) => {
          if (reply) succeed(reply);
        },
        (error: unknown) => log.log("debug", `could not read messages of ${sessionID}`, { error: redact(describeError(error)) }),
      );
    };

    const unsubscribe = events.on((event) => {
      if (event.type === "session.error" && event.properties.sessionID === sessionID) {
        fail(errorFromProvider(event.properties.error ?? { name: "UnknownError", data: { message: "unknown error" } }, ctx));
      } else if (isIdle(event, sessionID) && grace === undefined && !settled) {
        grace = clock.setTimeout(recover, input.graceMs);
      }
    });
    cleanups.push(unsubscribe);

    const onAbort = () => {
      abortChild();
      fail(abortedError(ctx));
    };
    input.signal?.addEventListener("abort", onAbort, { once: true });
    cleanups.push(() => input.signal?.removeEventListener("abort", onAbort));

    client.session.prompt({ path: { id: sessionID }, body: input.body, query: { directory } }).then(
      (result) => {
        if (result.error !== undefined || !result.data) fail(errorFromHttp(result.error, "run the prompt", ctx));
        else succeed(result.data);
      },
      (error: unknown) => fail(errorFromHttp(error, "run the prompt", ctx)),
    );
  });
}
