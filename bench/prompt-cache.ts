/**
 * What a prompt cache serves and bills, by each provider's own rules, for a sequence of recorded
 * chat-completions requests. Pure: the token bench feeds it the scripted model's requests and a
 * unit test pins each rule on hand-made sequences.
 *
 * - Anthropic: an entry is written only at a block that carries a `cache_control` marker (the ones
 *   OpenCode sets), if the prefix up to it reaches 1,024 tokens; writes bill at 1.25×. A request
 *   reads the longest live entry ending at a block boundary at most 20 blocks before one of its
 *   markers (reads 0.1×); a hit keeps the entry five more minutes. A marker may ask for an hour
 *   (`ttl: "1h"`, which OpenCode never sets: the bench uses it to say what an hour would change):
 *   its entry lives an hour, an hour more after each hit, and what is written up to it bills at 2×.
 * - OpenAI: automatic; a request reads the longest prefix it shares with a live earlier request,
 *   from 1,024 tokens on in steps of 128 tokens; no write premium; reads at its own discount.
 * Both: an entry is usable only once the response of the request that wrote it has begun.
 */
import crypto from "node:crypto";

/** About 4 bytes a token, the rule of thumb for English and code. */
export const BYTES_PER_TOKEN = 4;
export const MIN_TOKENS = 1024;
export const TTL_MS = 5 * 60_000;
/** The life of an entry written at a marker with Anthropic's `ttl: "1h"`. */
export const LONG_TTL_MS = 60 * 60_000;
/** How far before a marker Anthropic looks for an entry to read, in blocks. */
export const LOOKBACK_BLOCKS = 20;
/** OpenAI caches in steps of 128 tokens past the first 1,024. */
export const OPENAI_STEP_TOKENS = 128;

export type Provider = "anthropic" | "openai";

/** Prices per million tokens. */
export interface Prices {
  name: string;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** Writes of an entry that lives an hour (Anthropic's `ttl: "1h"`). */
  cacheWriteLong: number;
  output: number;
}

export const PRICES: Record<Provider, Prices> = {
  // Claude Sonnet 4.5: writes of the five-minute cache at 1.25×, of the hour's at 2×, reads at 0.1×.
  anthropic: { name: "Claude Sonnet 4.5", input: 3, cacheRead: 0.3, cacheWrite: 3.75, cacheWriteLong: 6, output: 15 },
  // GPT-5: cached input at 0.1×, nothing extra for writing.
  openai: { name: "GPT-5", input: 1.25, cacheRead: 0.125, cacheWrite: 1.25, cacheWriteLong: 1.25, output: 10 },
};

/** One request as a cache sees it: the body's blocks in the provider's order. */
export interface CacheRequest {
  /** When the request arrived (ms). */
  at: number;
  /** When its response began: what it writes is usable from then on. */
  ready: number;
  model: string;
  blocks: readonly Block[];
}

export interface Block {
  text: string;
  /** OpenCode set a `cache_control` marker on it. */
  marker: boolean;
  /** The marker asks for an hour's life (`ttl: "1h"`) instead of five minutes. */
  long?: boolean;
  /** Part of a system message. */
  system?: boolean;
}

/** What one request's input was billed as, in bytes. */
export interface Billed {
  total: number;
  read: number;
  /** Written to entries of five minutes. */
  written: number;
  /** Written to entries of an hour (none unless a marker asks for it). */
  writtenLong?: number;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A block's bytes without its marker: moving a marker does not change the prefix a cache keys on. */
function block(value: Json): Block {
  const { cache_control: marker, ...rest } = value;
  return { text: JSON.stringify(rest), marker: marker !== undefined };
}

/**
 * A chat-completions body as blocks in the order a provider reads it: each tool, each system
 * message, then each message of the conversation (a message with a content array gives a block per
 * part, an assistant message one per tool call).
 */
export function blocksOf(body: Json): Block[] {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
  const messages = Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
  const out: Block[] = tools.map(block);
  const ordered = [...messages.filter((m) => m.role === "system"), ...messages.filter((m) => m.role !== "system")];
  for (const message of ordered) {
    const { content, tool_calls: calls, ...head } = message;
    const own = block(message);
    const role = message.role === "system" ? { system: true } : {};
    if (Array.isArray(content)) {
      const parts = content.filter(isObject).map((p) => ({ ...block({ role: message.role, ...p }), ...role }));
      if (own.marker && parts.length > 0) parts[parts.length - 1] = { ...parts[parts.length - 1]!, marker: true };
      out.push(...parts);
    } else {
      out.push({ ...block({ ...head, content }), ...role });
      if (own.marker) out[out.length - 1] = { ...out[out.length - 1]!, marker: true };
    }
    if (Array.isArray(calls)) out.push(...calls.filter(isObject).map(block));
  }
  return out;
}

/** The cumulative byte length and a key of the prefix ending at each block. */
function prefixes(req: CacheRequest): { end: number; key: string }[] {
  const hash = crypto.createHash("sha256").update(req.model);
  let end = 0;
  return req.blocks.map((b) => {
    hash.update("\n").update(b.text);
    end += Buffer.byteLength(b.text) + 1;
    return { end, key: hash.copy().digest("hex") };
  });
}

const minBytes = MIN_TOKENS * BYTES_PER_TOKEN;

/** Anthropic's bill for each request, in arrival order. */
export function anthropicCache(requests: readonly CacheRequest[]): Billed[] {
  const entries = new Map<string, { ready: number; expires: number; ttl: number }>();
  return requests.map((req) => {
    const ends = prefixes(req);
    const total = ends.at(-1)?.end ?? 0;
    const live = (key: string) => {
      const e = entries.get(key);
      return e !== undefined && e.ready <= req.at && e.expires >= req.at ? e : undefined;
    };
    const markers = req.blocks.flatMap((b, i) => (b.marker ? [i] : []));
    let read = 0;
    let hit: { ready: number; expires: number; ttl: number } | undefined;
    for (const m of markers) {
      for (let j = m; j >= Math.max(0, m - LOOKBACK_BLOCKS); j--) {
        const e = live(ends[j]!.key);
        if (!e) continue;
        if (ends[j]!.end > read) {
          read = ends[j]!.end;
          hit = e;
        }
        break;
      }
    }
    if (hit) hit.expires = req.at + hit.ttl;
    // Bytes past the read up to the last hour-long marker bill as the hour's writes, the rest up to the last marker as five minutes'.
    let longEnd = read;
    let lastEnd = read;
    for (const m of markers) {
      const { end, key } = ends[m]!;
      if (end < minBytes) continue;
      const ttl = req.blocks[m]!.long ? LONG_TTL_MS : TTL_MS;
      if (!live(key)) entries.set(key, { ready: req.ready, expires: req.ready + ttl, ttl });
      if (ttl === LONG_TTL_MS) longEnd = Math.max(longEnd, end);
      lastEnd = Math.max(lastEnd, end);
    }
    return { total, read, written: lastEnd - longEnd, writtenLong: longEnd - read };
  });
}

function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** OpenAI's bill for each request, in arrival order: automatic, no writes billed. */
export function openaiCache(requests: readonly CacheRequest[]): Billed[] {
  const seen: { model: string; text: Buffer; ready: number; expires: number }[] = [];
  const step = OPENAI_STEP_TOKENS * BYTES_PER_TOKEN;
  return requests.map((req) => {
    const text = Buffer.from(req.blocks.map((b) => `\n${b.text}`).join(""));
    let best = 0;
    let hit: (typeof seen)[number] | undefined;
    for (const other of seen) {
      if (other.model !== req.model || other.ready > req.at || other.expires < req.at) continue;
      const n = commonPrefix(text, other.text);
      if (n > best) [best, hit] = [n, other];
    }
    const read = best < minBytes ? 0 : minBytes + Math.floor((best - minBytes) / step) * step;
    if (hit && read > 0) hit.expires = req.at + TTL_MS;
    seen.push({ model: req.model, text, ready: req.ready, expires: req.ready + TTL_MS });
    return { total: text.length, read, written: 0, writtenLong: 0 };
  });
}

export function billed(provider: Provider, requests: readonly CacheRequest[]): Billed[] {
  return provider === "anthropic" ? anthropicCache(requests) : openaiCache(requests);
}

export const sumBilled = (list: Iterable<Billed>): Billed =>
  [...list].reduce(
    (s, b) => ({
      total: s.total + b.total,
      read: s.read + b.read,
      written: s.written + b.written,
      writtenLong: (s.writtenLong ?? 0) + (b.writtenLong ?? 0),
    }),
    { total: 0, read: 0, written: 0, writtenLong: 0 },
  );

/** Input dollars with the provider's cache and without any. */
export function inputDollars(b: Billed, prices: Prices): { uncached: number; withCache: number } {
  const perByte = 1 / 1e6 / BYTES_PER_TOKEN;
  const long = b.writtenLong ?? 0;
  const rest = b.total - b.read - b.written - long;
  return {
    uncached: b.total * prices.input * perByte,
    withCache: (b.read * prices.cacheRead + b.written * prices.cacheWrite + long * prices.cacheWriteLong + rest * prices.input) * perByte,
  };
}

/**
 * The same requests with groups (stages) spaced `gapMs` apart: each group keeps its own timing and
 * starts `gapMs` after the one before it ended, as when a person reads between commands.
 */
export function spaced<T extends CacheRequest & { group: string }>(requests: readonly T[], gapMs: number): T[] {
  const out: T[] = [];
  let shift = 0;
  let lastEnd = -Infinity;
  let group: string | undefined;
  for (const req of requests) {
    if (req.group !== group) {
      group = req.group;
      if (lastEnd > -Infinity) shift = lastEnd + gapMs - req.at;
    }
    const moved = { ...req, at: req.at + shift, ready: req.ready + shift };
    lastEnd = Math.max(lastEnd, moved.ready);
    out.push(moved);
  }
  return out;
}

/**
 * The same requests had their system parts' markers asked for an hour (Anthropic's `ttl: "1h"`),
 * the others left at five minutes: what OpenCode would send if a plugin could ask for it.
 */
export function longSystemMarkers<T extends CacheRequest>(requests: readonly T[]): T[] {
  return requests.map((req) => ({ ...req, blocks: req.blocks.map((b) => (b.marker && b.system ? { ...b, long: true } : b)) }));
}

/**
 * The same requests under Anthropic's automatic caching (a `cache_control` on the request, not on
 * a block): one marker, at the last block, of five minutes or an hour. It is what OpenCode sends
 * when a request's provider options carry `cacheControl` (it then sets none of its own markers).
 */
export function automaticMarker<T extends CacheRequest>(requests: readonly T[], long: boolean): T[] {
  return requests.map((req) => ({
    ...req,
    blocks: req.blocks.map((b, i) => ({ ...b, marker: i === req.blocks.length - 1, long: long && i === req.blocks.length - 1 })),
  }));
}
