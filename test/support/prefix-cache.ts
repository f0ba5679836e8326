/**
 * What a provider's prompt cache would serve: for each request, the longest beginning it shares
 * byte for byte with a request of the last five minutes (same model), counted only from 1,024
 * tokens on, as Anthropic's cache does (OpenAI's works alike). Pure, so the bench and the scripted
 * model share one measure and a unit test can pin it.
 */

/** A cache entry lives five minutes. */
export const CACHE_TTL_MS = 5 * 60_000;
/** The smallest prefix a provider caches: 1,024 tokens at about 4 bytes a token. */
export const MIN_CACHED_BYTES = 1024 * 4;

export interface CacheProbe {
  /** When the request arrived (ms). */
  at: number;
  /** Caches are per model: requests to different models never share a prefix. */
  model: string;
  /** The body in the provider's order (see providerOrder). */
  text: string;
}

/**
 * A chat-completions body serialised in the order a provider reads it: the tool schemas, then the
 * system messages, then the conversation. A byte that changes early invalidates all that follows.
 */
export function providerOrder(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string }[]) : [];
  const parts = [
    JSON.stringify(body.tools ?? []),
    ...messages.filter((m) => m.role === "system").map((m) => JSON.stringify(m)),
    ...messages.filter((m) => m.role !== "system").map((m) => JSON.stringify(m)),
  ];
  return parts.join("\n");
}

function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** The bytes of a request's beginning a cache could serve, given the requests before it. */
export function cachedBytes(probe: CacheProbe, earlier: readonly CacheProbe[]): number {
  const mine = Buffer.from(probe.text);
  let best = 0;
  for (const other of earlier) {
    if (other.model !== probe.model || probe.at - other.at > CACHE_TTL_MS || other.at > probe.at) continue;
    best = Math.max(best, commonPrefix(mine, Buffer.from(other.text)));
  }
  return best >= MIN_CACHED_BYTES ? best : 0;
}

/** For requests in arrival order: the cached bytes of each, against those before it. */
export function cachedPrefixes(probes: readonly CacheProbe[]): number[] {
  return probes.map((p, i) => cachedBytes(p, probes.slice(0, i)));
}

/**
 * Dollars for `inputBytes` of which `cachedBytes` came from a cache, at `price` per million input
 * tokens (4 bytes a token): cache reads bill at 0.1×, the rest is written to the cache at 1.25×
 * (Anthropic's prices); without a cache all of it bills at 1×.
 */
export function inputDollars(inputBytes: number, cached: number, price: number): { uncached: number; withCache: number } {
  const perByte = price / 1e6 / 4;
  return { uncached: inputBytes * perByte, withCache: (cached * 0.1 + (inputBytes - cached) * 1.25) * perByte };
}
