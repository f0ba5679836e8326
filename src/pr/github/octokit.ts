import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/core";
import type { WriteLimiter } from "../backend.ts";
import { fetchWithTimeout } from "../http.ts";
import { isConnectFailure } from "../no-answer.ts";

/**
 * A refused connection or a name that does not resolve is not retried: nothing was sent, and the
 * retry plugin's backoff (1 + 4 + 9 s) would only delay the error. Timeouts and 5xx keep their
 * retries. Listed before `retry`, so its error hook runs first and sets the request's retries to 0,
 * which plugin-retry reads (`options.request.retries`) before it schedules another attempt.
 */
function failFast(octokit: Octokit): void {
  octokit.hook.error("request", (error, options) => {
    if (isConnectFailure(error)) options.request = { ...options.request, retries: 0 };
    throw error;
  });
}

const OttoOctokit = Octokit.plugin(throttling, failFast, retry);
export type GithubClient = InstanceType<typeof OttoOctokit>;

export interface OctokitOptions {
  /** REST base, e.g. https://api.github.com or https://ghe.example.com/api/v3. */
  apiUrl: string;
  token: string | undefined;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  /** Multiplies every Retry-After and retry delay (1000 in production: they are in seconds). */
  retryBaseMs: number;
  log(message: string): void;
  writeLimiter?: WriteLimiter;
}

/** Retries of a 5xx or a network error before the request fails (plugin-retry's default). */
const RETRIES = 3;
/** Secondary rate limits: wait as told (Retry-After) this many times, then fail the PR's poll. */
const SECONDARY_RETRIES = 2;
/**
 * Primary rate limit: retry once if the reset is near; otherwise the watcher backs off this PR.
 * https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api#exceeding-the-rate-limit
 */
const MAX_RATE_LIMIT_WAIT_S = 60;

/**
 * Octokit with throttling (primary and secondary rate limits, Retry-After) and retries (5xx,
 * timeouts; not a refused connection, see failFast). GraphQL goes through the same client: `octokit.graphql` posts to
 * `<api_url>/graphql`, and for an Enterprise `…/api/v3` base to `…/api/graphql`.
 */
export function createGithubClient(options: OctokitOptions): GithubClient {
  const warn = (message: string): void => options.log(message);
  const octokit = new OttoOctokit({
    baseUrl: options.apiUrl.replace(/\/+$/, ""),
    ...(options.token ? { auth: options.token } : {}),
    userAgent: "opencode-otto",
    request: { fetch: fetchWithTimeout(options.fetch, options.timeoutMs) },
    // Octokit's default log is the console; inside OpenCode stdout belongs to the host.
    log: { debug: () => undefined, info: () => undefined, warn, error: warn },
    retry: { retries: RETRIES, retryAfterBaseValue: options.retryBaseMs },
    throttle: {
      retryAfterBaseValue: options.retryBaseMs,
      // The plugin's types ask for a Bottleneck Group; it only calls key(id).schedule(…).
      ...(options.writeLimiter ? ({ write: options.writeLimiter, notifications: options.writeLimiter } as object) : {}),
      onRateLimit: (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number) => {
        warn(`GitHub rate limit reached; reset in ${retryAfter} s`);
        return retryCount < 1 && retryAfter <= MAX_RATE_LIMIT_WAIT_S;
      },
      onSecondaryRateLimit: (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number) => {
        warn(`GitHub secondary rate limit; retry after ${retryAfter} s`);
        return retryCount < SECONDARY_RETRIES;
      },
    },
  });
  // A REST POST creates content (comments, replies, reviews): a timeout or 5xx may have applied
  // it, so it is never retried here; src/pr/post-once.ts looks for it before writing again.
  // GraphQL POSTs are queries and idempotent thread updates, retried as usual.
  octokit.hook.before("request", (request) => {
    if (!isContentWrite(request.method, request.url)) return;
    request.request = { ...request.request, retries: 0 };
  });
  return octokit;
}

export function isContentWrite(method: string, url: string): boolean {
  return method.toUpperCase() === "POST" && !/\/graphql$/.test(url);
}
