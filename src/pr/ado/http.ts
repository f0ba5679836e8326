import { OttoError, redact } from "../../core/index.ts";
import { fetchWithTimeout, retryAfterMs, retryDelay } from "../http.ts";
import { uncertainWrite } from "../post-once.ts";
import { readCapped, type Capped } from "../read-capped.ts";

/*
 * A small Azure DevOps REST client: api-version 7.1, auth header, retries.
 * - 203 (the sign-in page served with "Non-Authoritative Information"), 401 and redirects to the
 *   sign-in page mean the credentials are wrong or expired.
 * - 429 waits for Retry-After: https://learn.microsoft.com/en-us/azure/devops/integrate/concepts/rate-limits
 * - 5xx, timeouts and network errors are retried with the shared backoff, unless the request is
 *   not idempotent (a POST creating a thread or comment, a re-queue): the server may have applied
 *   it, so it fails as an uncertain write and src/pr/post-once.ts decides (see decisions.md).
 */

export const API_VERSION = "7.1";
const RETRIES = 3;
/** Never sleep longer than this for one Retry-After; the watcher backs the PR off instead. */
const MAX_RETRY_AFTER_MS = 120_000;
/**
 * The largest answer read whole (a PR's threads come in one answer, without pages); a larger one
 * fails instead of filling memory. Error bodies are read up to ERROR_BODY_BYTES.
 */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
const ERROR_BODY_BYTES = 64 * 1024;

export interface AdoHttpOptions {
  /** Base URL of the organization or collection, e.g. https://dev.azure.com/contoso. */
  orgUrl: string;
  authorization: () => Promise<string>;
  fetch: typeof globalThis.fetch;
  sleep: (ms: number) => Promise<void>;
  timeoutMs: number;
  retryBaseMs: number;
}

export interface RequestOptions {
  method?: "GET" | "POST" | "PATCH";
  query?: Record<string, string | number>;
  body?: unknown;
  apiVersion?: string;
  signal?: AbortSignal;
  /** Whether sending it twice does no harm; default: every method but POST. */
  idempotent?: boolean;
  /** The body's type when it is not plain JSON (a work item's `application/json-patch+json`). */
  contentType?: string;
}

export interface AdoHttp {
  json<T>(path: string, options?: RequestOptions): Promise<T>;
  text(path: string, options?: RequestOptions): Promise<string>;
  /** A text answer read through as it streams, keeping only its last `maxBytes` (logs: the end holds the failure). */
  tail(path: string, maxBytes: number, options?: RequestOptions): Promise<Capped>;
}

class Retryable extends Error {
  constructor(
    message: string,
    readonly waitMs?: number,
    /** False when the server said it did nothing (429); true when it may have applied the request. */
    readonly uncertain = true,
  ) {
    super(message);
  }
}

function errorFor(status: number, body: string, what: string): Error {
  if (status === 203 || status === 401 || (status >= 300 && status < 400)) {
    return new OttoError(
      "pr_auth",
      `Azure DevOps rejected the credentials for ${what} (${status}).`,
      "Check OTTO_ADO_PAT (expired? scopes Code read & write, Build read) or run az login.",
    );
  }
  let message = body.slice(0, 300);
  try {
    message = (JSON.parse(body) as { message?: string }).message ?? message;
  } catch {
    // Not JSON: keep the text.
  }
  if (status === 404)
    return new OttoError(
      "pr_not_found",
      `Azure DevOps has no ${what} (404): ${redact(message)}`,
      "Check the organization, project and PR id.",
    );
  return new OttoError(
    "pr_api",
    `Azure DevOps request for ${what} failed (${status}): ${redact(message)}`,
    "Run the command again (a tracked PR is retried on the watcher's next poll).",
  );
}

export function createAdoHttp(options: AdoHttpOptions): AdoHttp {
  const fetchImpl = fetchWithTimeout(options.fetch, options.timeoutMs);

  async function once(path: string, request: RequestOptions, accept: string, tailBytes?: number): Promise<Capped> {
    const url = new URL(`${options.orgUrl.replace(/\/+$/, "")}/${path}`);
    for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, String(value));
    url.searchParams.set("api-version", request.apiVersion ?? API_VERSION);
    const headers: Record<string, string> = { authorization: await options.authorization(), accept };
    if (request.body !== undefined) headers["content-type"] = request.contentType ?? "application/json";
    let response: Response;
    try {
      response = await fetchImpl(url, {
        method: request.method ?? "GET",
        headers,
        redirect: "manual",
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (error) {
      if (request.signal?.aborted) throw error;
      throw new Retryable(`network error: ${error instanceof Error ? error.message : String(error)}`);
    }
    const what = `${request.method ?? "GET"} ${url.pathname}`;
    const ok = response.status === 200 || response.status === 201 || response.status === 204;
    const read = await readCapped(
      response.body,
      !ok ? { maxBytes: ERROR_BODY_BYTES } : tailBytes !== undefined ? { maxBytes: tailBytes, keep: "tail" } : { maxBytes: MAX_BODY_BYTES },
    );
    const body = read.text;
    if (ok && read.truncated && tailBytes === undefined) {
      throw new OttoError(
        "pr_response_too_large",
        `Azure DevOps answered ${what} with more than ${MAX_BODY_BYTES / 1024 / 1024} MB; otto reads at most that much.`,
        "Look at the PR in the browser; otto tries again on the next poll.",
      );
    }
    if (response.status === 429)
      throw new Retryable("rate limited (429)", retryAfterMs(response.headers.get("retry-after"), Date.now()), false);
    if (response.status >= 500)
      throw new Retryable(`server error (${response.status})`, retryAfterMs(response.headers.get("retry-after"), Date.now()));
    if (!ok) throw errorFor(response.status, body, what);
    // The sign-in page can also come back as a 200 HTML page.
    if (accept === "application/json" && /^\s*</.test(body)) throw errorFor(203, body, what);
    return read;
  }

  async function withRetries(path: string, request: RequestOptions, accept: string, tailBytes?: number): Promise<Capped> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(path, request, accept, tailBytes);
      } catch (error) {
        if (!(error instanceof Retryable)) throw error;
        if (error.uncertain && !(request.idempotent ?? (request.method ?? "GET") !== "POST"))
          throw uncertainWrite(`Azure DevOps ${request.method ?? "GET"} ${path}`, error.message, error);
        if (attempt >= RETRIES)
          throw new OttoError(
            "pr_api",
            `Azure DevOps ${path}: ${error.message}, ${RETRIES + 1} attempts.`,
            "Run the command again (a tracked PR is retried on the watcher's next poll).",
          );
        // Retry-After is in seconds; like Octokit's retryAfterBaseValue, retryBaseMs scales it (tests run in ms).
        const told = error.waitMs === undefined ? undefined : (error.waitMs * options.retryBaseMs) / 1000;
        await options.sleep(Math.min(told ?? retryDelay(attempt, options.retryBaseMs), MAX_RETRY_AFTER_MS));
      }
    }
  }

  return {
    async json<T>(path: string, request: RequestOptions = {}): Promise<T> {
      const { text } = await withRetries(path, request, "application/json");
      return (text === "" ? undefined : JSON.parse(text)) as T;
    },
    text: async (path, request = {}) => (await withRetries(path, request, "text/plain")).text,
    tail: (path, maxBytes, request = {}) => withRetries(path, request, "text/plain", maxBytes),
  };
}
