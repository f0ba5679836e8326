import { OttoError, redact } from "../../core/index.ts";
import { fetchWithTimeout, retryAfterMs, retryDelay } from "../http.ts";
import { hostPort, isConnectFailure, noAnswerReason } from "../no-answer.ts";
import { uncertainWrite } from "../post-once.ts";
import { readCapped, type Capped } from "../read-capped.ts";

/*
 * A small Azure DevOps REST client: api-version 7.1, auth header, retries.
 * - 203 (the sign-in page served with "Non-Authoritative Information"), 401 and redirects to the
 *   sign-in page mean the credentials are wrong or expired.
 * - 429 waits for Retry-After: https://learn.microsoft.com/en-us/azure/devops/integrate/concepts/rate-limits
 * - A refused connection or a name that does not resolve fails at once (nothing was sent; asking
 *   again within seconds meets the same answer).
 * - 5xx, timeouts and other network errors are retried with the shared backoff, unless the request is
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
  /** The Authorization header; undefined: no credentials were found, the request goes anonymous (a public project's reads work). */
  authorization: () => Promise<string | undefined>;
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
    /** When no HTTP answer came at all: the network error, for the message once the retries run out. */
    readonly noAnswer?: { error: unknown; what: string; anonymous: boolean },
  ) {
    super(message);
  }
}

const NO_TOKEN = "otto found no Azure DevOps credentials (pr.providers.ado.pat, OTTO_ADO_PAT or `az account get-access-token`)";
const SET_TOKEN = "Set OTTO_ADO_PAT (or /otto-config set pr.providers.ado.pat <pat> --user; or run az login), then run the command again.";
/** What otto's requests need of a PAT: PRs and threads, pipelines, the project's teams. */
const SCOPES = "Code (Read & write), Build (Read), Project and Team (Read)";

function errorFor(status: number, body: string, what: string, anonymous: boolean): Error {
  const signIn = status === 203 || status === 401 || (status >= 300 && status < 400);
  if (anonymous && (signIn || status === 403 || status === 404)) {
    return new OttoError(
      "pr_no_token",
      `Azure DevOps answered ${status} for ${what}, and ${NO_TOKEN}: only a public project can be read without them.`,
      SET_TOKEN,
    );
  }
  if (signIn) {
    return new OttoError(
      "pr_auth",
      `Azure DevOps rejected the credentials for ${what} (${status}): the PAT is wrong, expired or revoked, or made for another organization.`,
      `Check OTTO_ADO_PAT or pr.providers.ado.pat (a PAT of this organization with the scopes ${SCOPES}), or run az login.`,
    );
  }
  let message = body.slice(0, 300);
  try {
    message = (JSON.parse(body) as { message?: string }).message ?? message;
  } catch {
    // Not JSON: keep the text.
  }
  if (status === 403)
    return new OttoError(
      "pr_forbidden",
      `Azure DevOps refused ${what} (403): ${redact(message)}. The PAT lacks a scope this needs, or its user lacks the permission in the project.`,
      `Give the PAT the scopes ${SCOPES}, and its user access to the repository, then run the command again.`,
    );
  if (status === 404)
    return new OttoError(
      "pr_not_found",
      `Azure DevOps has no ${what} (404): ${redact(message)}. Either it does not exist, or the PAT's user cannot see the project.`,
      "Check the organization, project and PR id in the URL, and that the PAT's user is a member of the project.",
    );
  return new OttoError(
    "pr_api",
    `Azure DevOps request for ${what} failed (${status}): ${redact(message)}`,
    "Run the command again (a tracked PR is retried on the watcher's next poll).",
  );
}

export function createAdoHttp(options: AdoHttpOptions): AdoHttp {
  const fetchImpl = fetchWithTimeout(options.fetch, options.timeoutMs);

  const unreachable = (what: string, error: unknown, anonymous: boolean, attempts: number): OttoError =>
    new OttoError(
      "pr_unreachable",
      `Azure DevOps could not be reached for ${what}: ${hostPort(options.orgUrl)}: ` +
        `${noAnswerReason(error, redact(error instanceof Error ? error.message : String(error)))}; no HTTP status came back` +
        `${attempts > 1 ? ` (${attempts} attempts)` : ""}.${anonymous ? ` Also, ${NO_TOKEN}.` : ""}`,
      `Check that ${options.orgUrl} is reachable from this machine (network, proxy, VPN; Azure DevOps Server: pr.providers.ado.base_url), then run the command again.`,
      { cause: error },
    );

  async function once(path: string, request: RequestOptions, accept: string, tailBytes?: number): Promise<Capped> {
    const url = new URL(`${options.orgUrl.replace(/\/+$/, "")}/${path}`);
    for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, String(value));
    url.searchParams.set("api-version", request.apiVersion ?? API_VERSION);
    const authorization = await options.authorization();
    const headers: Record<string, string> = { ...(authorization ? { authorization } : {}), accept };
    const what = `${request.method ?? "GET"} ${url.pathname}`;
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
      if (isConnectFailure(error)) throw unreachable(what, error, !authorization, 1);
      throw new Retryable(`network error: ${error instanceof Error ? error.message : String(error)}`, undefined, true, {
        error,
        what,
        anonymous: !authorization,
      });
    }
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
    if (!ok) throw errorFor(response.status, body, what, !authorization);
    // The sign-in page can also come back as a 200 HTML page.
    if (accept === "application/json" && /^\s*</.test(body)) throw errorFor(203, body, what, !authorization);
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
        if (attempt >= RETRIES && error.noAnswer)
          throw unreachable(error.noAnswer.what, error.noAnswer.error, error.noAnswer.anonymous, RETRIES + 1);
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
