import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  error,
  isEntry,
  matches,
  parseRequest,
  resolveReply,
  sse,
  text,
  type Matcher,
  type RecordedRequest,
  type Reply,
  type ServedUsage,
  type ScriptEntry,
  type Step,
} from "./model-script.ts";
import { cachedBytes, providerOrder, type CacheProbe } from "./prefix-cache.ts";

/**
 * A scripted OpenAI-compatible model for end-to-end tests. OpenCode talks to it through
 * `@ai-sdk/openai-compatible` (POST /v1/chat/completions, `stream: true`, SSE answers), so tests
 * exercise the real provider code path with replies chosen by the test.
 * Wire format: https://platform.openai.com/docs/api-reference/chat/streaming
 */

export interface ModelServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** url + "/v1": what goes into opencode.json `provider.<id>.options.baseURL`. */
  baseURL: string;
  port: number;
  /** Every chat-completions request, in arrival order (live array). */
  requests: RecordedRequest[];
  /** Appends entries to the script. A bare Reply is an entry that matches anything. */
  script(...entries: (ScriptEntry | Reply)[]): void;
  /** Answer for non-title requests no entry matches (default: text "ok"). */
  fallback: Reply;
  /** Answer for title requests (default: text "Test session"). */
  titleReply: Reply;
  /** The usage reported with each text or tool-call answer (default: 10 prompt, 5 completion tokens). */
  usage: (req: RecordedRequest) => ServedUsage;
  /** Script entries not yet used up (Infinity entries never are). */
  pending(): ScriptEntry[];
  /** Requests that only the fallback answered. */
  unmatched(): RecordedRequest[];
  /** Non-title requests: the ones a test usually asserts on. */
  turns(): RecordedRequest[];
  /**
   * Requests whose reply is still open (hang, delay). OpenCode does not always close the connection
   * when a session is aborted, so a hung reply can stay open until reset() or close() ends it.
   */
  inFlight(): RecordedRequest[];
  /** Resolves with the first request (past or future) the predicate accepts. */
  waitForRequest(predicate: Matcher, timeoutMs?: number): Promise<RecordedRequest>;
  /** Clears the script, the records and the fallbacks, for reuse across tests. Ends hanging replies. */
  reset(): void;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Streaming answers

function chunk(model: string, delta: Record<string, unknown>, finishReason: string | null): string {
  return sse({
    id: "chatcmpl-otto-test",
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
}

/** The SSE body for a text or tool-call step; ends with the usage chunk and `[DONE]`. */
const DEFAULT_USAGE: ServedUsage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

export function streamBody(
  step: Extract<Step, { kind: "text" | "tools" }>,
  model: string,
  seq: number,
  usage: ServedUsage = DEFAULT_USAGE,
): string[] {
  const out: string[] = [];
  if (step.kind === "text") {
    out.push(chunk(model, { role: "assistant", content: step.content }, null));
    out.push(chunk(model, {}, "stop"));
  } else {
    if (step.content) out.push(chunk(model, { role: "assistant", content: step.content }, null));
    step.calls.forEach((call, index) => {
      const id = call.id ?? `call_${seq}_${index}`;
      const head = { index, id, type: "function", function: { name: call.name, arguments: "" } };
      out.push(chunk(model, { role: "assistant", tool_calls: [head] }, null));
      const args = typeof call.args === "string" ? call.args : JSON.stringify(call.args);
      out.push(chunk(model, { tool_calls: [{ index, function: { arguments: args } }] }, null));
    });
    out.push(chunk(model, {}, "tool_calls"));
  }
  // OpenCode asks for usage (stream_options.include_usage) and records it (and its price) on the message.
  out.push(sse({ id: "chatcmpl-otto-test", object: "chat.completion.chunk", created: 0, model, choices: [], usage }));
  out.push("data: [DONE]\n\n");
  return out;
}

/** Non-streaming answer, in case a caller sends `stream: false`. */
function jsonBody(step: Extract<Step, { kind: "text" | "tools" }>, model: string, seq: number, usage: ServedUsage): unknown {
  const message =
    step.kind === "text"
      ? { role: "assistant", content: step.content }
      : {
          role: "assistant",
          content: step.content ?? null,
          tool_calls: step.calls.map((c, i) => ({
            id: c.id ?? `call_${seq}_${i}`,
            type: "function",
            function: { name: c.name, arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args) },
          })),
        };
  return {
    id: "chatcmpl-otto-test",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: step.kind === "text" ? "stop" : "tool_calls" }],
    usage,
  };
}

// ---------------------------------------------------------------------------------------------
// The server

/** Predicates come from tests; one that throws counts as "no match" rather than crashing the server. */
function safeMatches(matcher: Matcher, req: RecordedRequest): boolean {
  try {
    return matches(matcher, req);
  } catch {
    return false;
  }
}

interface Waiter {
  matcher: Matcher;
  resolve(req: RecordedRequest): void;
}

export interface ModelServerOptions {
  /** Model ids listed by GET /v1/models. */
  models?: string[];
  /**
   * Play a provider with a prompt cache: each answer's usage reports, as OpenAI-compatible
   * providers do (`prompt_tokens_details.cached_tokens`), the tokens of the request's beginning
   * that a request of the last five minutes shared (test/support/prefix-cache.ts), at 4 bytes a
   * token. Off by default: the usage then is exactly what `usage` returns.
   */
  promptCache?: boolean;
}

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const models = options.models ?? ["m1", "m2"];
  const requests: RecordedRequest[] = [];
  // What the provider's cache has seen: kept across reset(), as a provider's cache outlives a test's script.
  const cacheHistory: CacheProbe[] = [];
  let queue: { entry: ScriptEntry; left: number }[] = [];
  let entryCount = 0;
  let waiters: Waiter[] = [];
  // Responses that are still open (hangs, delays): ended on reset/close so nothing keeps a socket.
  const open = new Set<{ res: http.ServerResponse; timer?: NodeJS.Timeout }>();

  const defaults = { fallback: text("ok"), titleReply: text("Test session") };

  function pick(req: RecordedRequest): { reply: Reply; label: string } {
    if (req.isTitle) return { reply: api.titleReply, label: "title" };
    const slot = queue.find((s) => s.left > 0 && matches(s.entry.match, req));
    if (!slot) {
      req.unmatched = true;
      return { reply: api.fallback, label: "fallback" };
    }
    slot.left -= 1;
    if (slot.left === 0) queue = queue.filter((s) => s !== slot);
    return { reply: slot.entry.reply, label: slot.entry.label ?? "scripted" };
  }

  function answer(
    res: http.ServerResponse,
    req: RecordedRequest,
    step: Step,
    model: string,
    handle: { res: http.ServerResponse; timer?: NodeJS.Timeout },
  ): void {
    const finish = (): void => {
      req.endedAt = Date.now();
      open.delete(handle);
    };
    switch (step.kind) {
      case "as":
        answer(res, req, step.step, step.model, handle);
        return;
      case "delay":
        handle.timer = setTimeout(() => answer(res, req, step.step, model, handle), step.ms);
        return;
      case "hang":
        // Send headers so the client sees a live stream, then nothing: OpenCode waits until aborted.
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.flushHeaders();
        return;
      case "error":
        res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
        res.end(typeof step.body === "string" ? step.body : JSON.stringify(step.body), finish);
        return;
      case "raw":
        res.writeHead(step.status ?? 200, { "content-type": step.contentType ?? "text/event-stream" });
        for (const piece of step.chunks) res.write(piece);
        res.end(finish);
        return;
      case "text":
      case "tools": {
        const usage = (req.usage = withCache(api.usage(req), req));
        req.respondedAt = Date.now();
        if (req.body.stream === false) {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify(jsonBody(step, model, req.seq, usage)), finish);
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        for (const piece of streamBody(step, model, req.seq, usage)) res.write(piece);
        res.end(finish);
        return;
      }
    }
  }

  function withCache(usage: ServedUsage, req: RecordedRequest): ServedUsage {
    if (req.cachedBytes === undefined) return usage;
    const cached = Math.min(usage.prompt_tokens, Math.round(req.cachedBytes / 4));
    return { ...usage, prompt_tokens_details: { ...usage.prompt_tokens_details, cached_tokens: cached } };
  }

  function handleChat(body: Record<string, unknown>, res: http.ServerResponse): void {
    const req = parseRequest(requests.length + 1, body);
    requests.push(req);
    if (options.promptCache) {
      const probe = { at: req.startedAt, model: req.model, text: providerOrder(body) };
      req.cachedBytes = cachedBytes(probe, cacheHistory);
      cacheHistory.push(probe);
    }
    let step: Step;
    try {
      const picked = pick(req);
      req.answeredBy = picked.label;
      step = resolveReply(picked.reply, req);
    } catch (cause) {
      // A throwing matcher or dynamic reply is a test bug. Answer 400, which OpenCode does not
      // retry, so the turn fails with this message instead of hanging in retries.
      req.answeredBy = "script error";
      step = error(400, { error: { message: `the test's model script threw: ${String(cause)}` } });
    }
    req.reply = step;
    const handle: { res: http.ServerResponse; timer?: NodeJS.Timeout } = { res };
    open.add(handle);
    res.on("close", () => {
      if (req.endedAt === undefined) {
        req.aborted = true;
        req.endedAt = Date.now();
      }
      if (handle.timer) clearTimeout(handle.timer);
      open.delete(handle);
    });
    for (const waiter of waiters.filter((w) => safeMatches(w.matcher, req))) {
      waiters = waiters.filter((w) => w !== waiter);
      waiter.resolve(req);
    }
    answer(res, req, step, req.model, handle);
  }

  const server = http.createServer((incoming, res) => {
    const url = incoming.url ?? "/";
    if (incoming.method === "GET" && url.startsWith("/v1/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "otto-test" })) }));
      return;
    }
    if (incoming.method !== "POST" || !url.startsWith("/v1/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${incoming.method ?? ""} ${url}` } }));
      return;
    }
    const parts: Buffer[] = [];
    incoming.on("data", (part: Buffer) => parts.push(part));
    incoming.on("end", () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
      } catch {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "body is not JSON" } }));
        return;
      }
      handleChat(body, res);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  function endOpen(): void {
    for (const handle of open) {
      if (handle.timer) clearTimeout(handle.timer);
      handle.res.destroy();
    }
    open.clear();
  }

  const api: ModelServer = {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    fallback: defaults.fallback,
    titleReply: defaults.titleReply,
    usage: () => DEFAULT_USAGE,
    script(...entries) {
      for (const value of entries) {
        const entry: ScriptEntry = isEntry(value) ? value : { reply: value };
        entryCount += 1;
        const kind = typeof entry.reply === "function" ? "dynamic" : entry.reply.kind;
        queue.push({ entry: { ...entry, label: entry.label ?? `#${entryCount} ${kind}` }, left: entry.times ?? 1 });
      }
    },
    pending: () => queue.filter((s) => s.left !== Infinity).map((s) => s.entry),
    unmatched: () => requests.filter((r) => r.unmatched),
    turns: () => requests.filter((r) => !r.isTitle),
    inFlight: () => requests.filter((r) => r.endedAt === undefined),
    waitForRequest(matcher, timeoutMs = 30_000) {
      const seen = requests.find((r) => safeMatches(matcher, r));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          reject(new Error(`no matching model request within ${timeoutMs} ms (saw ${requests.length} requests)`));
        }, timeoutMs);
        const waiter: Waiter = {
          matcher,
          resolve: (req) => {
            clearTimeout(timer);
            resolve(req);
          },
        };
        waiters.push(waiter);
      });
    },
    reset() {
      endOpen();
      requests.length = 0;
      queue = [];
      entryCount = 0;
      api.fallback = defaults.fallback;
      api.titleReply = defaults.titleReply;
      api.usage = () => DEFAULT_USAGE;
    },
    async close() {
      endOpen();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}
