import http from "node:http";
import type net from "node:net";

/*
 * The core of the fake forges (fake-github/, fake-ado/): a node:http server on 127.0.0.1 that
 * records every request and can inject faults (server errors, hangs, rate limits) into a share
 * of them, deterministically (seeded), so tests can assert what the client did about it.
 */

/**
 * "500", "timeout" and "rate_limit" fail before the request is applied; "timeout_after" and
 * "500_after" apply it (a write happens) and then hang or answer 500, as a proxy or a slow server
 * can: the client cannot tell whether its write was applied.
 */
export type FaultKind = "500" | "timeout" | "rate_limit" | "timeout_after" | "500_after";

/** The faults answered with a reply of the fake's own. */
export type ReplyFault = Exclude<FaultKind, "timeout" | "timeout_after" | "500_after">;

export interface FaultPlan {
  /** Share of matching requests that fail, 0..1. */
  rate: number;
  kinds: FaultKind[];
  /** Seed of the PRNG that picks the requests that fail (default 1); kinds take turns. */
  seed?: number;
  /** Only requests this accepts may fail (default: all). */
  match?: (call: { method: string; path: string }) => boolean;
  /**
   * Faults in a row for one request (method, path and query) before it is let through (default
   * 2): transient trouble, which a client with three retries always gets past.
   */
  maxConsecutive?: number;
}

export interface IncomingRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it is not JSON, or undefined. */
  body: unknown;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** JSON-encoded unless it is a string (sent as is). */
  body?: unknown;
}

export interface RecordedCall {
  seq: number;
  /** When the request arrived (Date.now()). */
  at: number;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  status: number;
  /** The injected fault, when there was one. */
  fault?: FaultKind;
  /** The reply's body (parsed JSON or text), for schema checks. */
  response?: unknown;
  /** Whether the request carried the credential the fake was configured with (fakes that check one). */
  authenticated?: boolean;
  responseHeaders: Record<string, string>;
}

export interface FakeHttp {
  url: string;
  /** Every request so far, in arrival order (live array). */
  calls: RecordedCall[];
  /** Starts (or, with undefined, stops) injecting faults. */
  faults(plan: FaultPlan | undefined): void;
  close(): Promise<void>;
}

export interface FakeHttpOptions {
  handle(request: IncomingRequest): Reply | Promise<Reply>;
  /** The reply for an injected server error or rate limit. */
  faultReply(kind: ReplyFault): Reply;
  /** How long a "timeout" fault holds the request before dropping the connection (default 3 s). */
  hangMs?: number;
  /** Whether a request carries the configured credential, recorded with each call. */
  authenticated?(headers: Record<string, string>): boolean;
  /** Called with each call once its reply is sent (not for hung requests). */
  replied?(call: RecordedCall): void;
}

/** Deterministic PRNG (mulberry32), so a seeded fault plan fails the same requests every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function startFakeHttp(options: FakeHttpOptions): Promise<FakeHttp> {
  const calls: RecordedCall[] = [];
  const sockets = new Set<net.Socket>();
  let plan: FaultPlan | undefined;
  let random = prng(1);
  let faulted = 0;
  const streaks = new Map<string, number>();

  function pickFault(method: string, path: string, key: string): FaultKind | undefined {
    if (!plan || plan.kinds.length === 0 || (plan.match && !plan.match({ method, path }))) return undefined;
    const streak = streaks.get(key) ?? 0;
    if (streak >= (plan.maxConsecutive ?? 2) || random() >= plan.rate) {
      streaks.delete(key);
      return undefined;
    }
    streaks.set(key, streak + 1);
    // Kinds take turns, so every kind shows up once a few requests have failed.
    return plan.kinds[faulted++ % plan.kinds.length];
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(", ") : (v ?? "")]),
      );
      const body = await readBody(req);
      const method = req.method ?? "GET";
      const call: RecordedCall = {
        seq: calls.length + 1,
        at: Date.now(),
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers,
        body,
        status: 0,
        responseHeaders: {},
      };
      if (options.authenticated) call.authenticated = options.authenticated(headers);
      calls.push(call);
      const fault = pickFault(method, url.pathname, `${method} ${url.pathname}${url.search}`);
      if (fault) call.fault = fault;
      const apply = () => options.handle({ method, path: url.pathname, query: url.searchParams, headers, body });
      if (fault === "timeout" || fault === "timeout_after") {
        if (fault === "timeout_after") await Promise.resolve(apply()).catch(() => undefined);
        setTimeout(() => req.socket.destroy(), options.hangMs ?? 3_000).unref();
        return;
      }
      let reply: Reply;
      try {
        if (fault === "500_after") await apply();
        reply = fault ? options.faultReply(fault === "500_after" ? "500" : fault) : await apply();
      } catch (error) {
        reply = { status: 500, body: { message: `fake server bug: ${error instanceof Error ? error.stack : String(error)}` } };
      }
      const isText = typeof reply.body === "string";
      const payload = reply.body === undefined ? "" : isText ? (reply.body as string) : JSON.stringify(reply.body);
      const out: Record<string, string> = {
        ...(reply.body !== undefined ? { "content-type": isText ? "text/plain; charset=utf-8" : "application/json; charset=utf-8" } : {}),
        ...reply.headers,
      };
      call.status = reply.status;
      call.response = reply.body;
      call.responseHeaders = out;
      res.writeHead(reply.status, out);
      res.end(payload);
      options.replied?.(call);
    })();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("fake server has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    calls,
    faults(next) {
      plan = next;
      random = prng(next?.seed ?? 1);
      faulted = 0;
      streaks.clear();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
