/*
 * HTTP helpers shared by the backends: a per-request time limit, and the backoff schedule.
 */

/**
 * `fetch` with a time limit per request. A request that passes it fails with a plain Error, which
 * Octokit turns into a retryable 500 and the Azure DevOps client retries like one; an abort from
 * the caller stays an abort.
 */
export function fetchWithTimeout(fetchImpl: typeof globalThis.fetch, timeoutMs: number): typeof globalThis.fetch {
  return async (input, init = {}) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    try {
      return await fetchImpl(input, { ...init, signal });
    } catch (error) {
      if (timeout.aborted && !init.signal?.aborted) throw new Error(`no answer within ${timeoutMs} ms`, { cause: error });
      throw error;
    }
  };
}

/**
 * Delay before retry `attempt` (0-based): base, 4×base, 9×base, the same quadratic schedule
 * @octokit/plugin-retry uses, so both providers back off alike.
 */
export function retryDelay(attempt: number, baseMs: number): number {
  return (attempt + 1) ** 2 * baseMs;
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), in ms; undefined when absent. */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
