import { describe, expect, it } from "vitest";
import {
  anthropicCache,
  blocksOf,
  BYTES_PER_TOKEN,
  inputDollars,
  MIN_TOKENS,
  openaiCache,
  PRICES,
  spaced,
  TTL_MS,
  LONG_TTL_MS,
  longSystemMarkers,
  automaticMarker,
  type Block,
  type CacheRequest,
} from "../../../bench/prompt-cache.ts";

const MIN = MIN_TOKENS * BYTES_PER_TOKEN;
/** A block of `bytes` bytes once serialised (the quotes count), marked or not. */
const b = (fill: string, bytes: number, marker = false): Block => ({ text: JSON.stringify(fill.repeat(Math.max(0, bytes - 2))), marker });
const req = (blocks: Block[], at = 0, ready = at + 1, model = "claude"): CacheRequest => ({ at, ready, model, blocks });
/** The byte offset where block `i` ends (each block is preceded by a newline). */
const endOf = (blocks: Block[], i: number) => blocks.slice(0, i + 1).reduce((n, x) => n + x.text.length + 1, 0);

describe("Anthropic's prompt cache", () => {
  const system = b("s", MIN * 2, true);

  it("writes at a marker and a later request reads it; writes bill at 1.25×, reads at 0.1×", () => {
    const first = [system, b("u", 400, true)];
    const second = [system, b("v", 400, true)];
    const [one, two] = anthropicCache([req(first, 0), req(second, 10)]);
    expect(one).toEqual({ total: endOf(first, 1), read: 0, written: endOf(first, 1), writtenLong: 0 });
    expect(two).toEqual({ total: endOf(second, 1), read: endOf(second, 0), written: endOf(second, 1) - endOf(second, 0), writtenLong: 0 });
    const d = inputDollars(two!, PRICES.anthropic);
    const perByte = 1 / 1e6 / BYTES_PER_TOKEN;
    expect(d.withCache).toBeCloseTo((two!.read * 0.3 + two!.written * 3.75) * perByte, 12);
  });

  it("reads nothing where no marker was written: an unmarked shared prefix stays unread", () => {
    const shared = b("s", MIN * 2);
    const [, two] = anthropicCache([req([shared, b("u", 400, true)], 0), req([shared, b("v", 400, true)], 10)]);
    expect(two!.read).toBe(0);
  });

  it("finds an entry within 20 blocks before a marker, not 21", () => {
    const head = [system];
    const tail = (n: number, c: string) => Array.from({ length: n }, (_, i) => b(`${c}${i}`, 10, i === n - 1));
    // The later request carries no marker of its own on the system block: only its last block's.
    const unmarked = [{ ...system, marker: false }];
    const within = anthropicCache([req(head, 0), req([...unmarked, ...tail(20, "a")], 10)]);
    expect(within[1]!.read).toBe(endOf(head, 0));
    const beyond = anthropicCache([req(head, 0), req([...unmarked, ...tail(21, "a")], 10)]);
    expect(beyond[1]!.read).toBe(0);
  });

  it("writes nothing under 1,024 tokens", () => {
    const small = [b("s", MIN - 100, true), b("u", 50, true)];
    const [one, two] = anthropicCache([req(small, 0), req(small, 10)]);
    expect(one!.written).toBe(0);
    expect(two!.read).toBe(0);
  });

  it("keeps an entry five minutes, and five more after each hit", () => {
    const r = [system];
    expect(anthropicCache([req(r, 0, 0), req(r, TTL_MS + 1)])[1]!.read).toBe(0);
    const refreshed = anthropicCache([req(r, 0, 0), req(r, TTL_MS - 1), req(r, 2 * TTL_MS - 2)]);
    expect(refreshed.map((x) => x.read)).toEqual([0, endOf(r, 0), endOf(r, 0)]);
  });

  it("serves an entry only once the response that wrote it has begun", () => {
    const r = [system, b("u", 10, true)];
    const parallel = anthropicCache([req(r, 0, 500), req(r, 100)]);
    expect(parallel[1]!.read).toBe(0);
    expect(parallel[1]!.written).toBe(endOf(r, 1));
    expect(anthropicCache([req(r, 0, 500), req(r, 600)])[1]!.read).toBe(endOf(r, 1));
  });

  it("an hour-long marker (ttl 1h): its entry outlives five minutes, an hour after each hit; what is written up to it bills at 2×", () => {
    const long = { ...system, long: true };
    const first = [long, b("u", 400, true)];
    const later = [long, b("v", 400, true)];
    const [one, two] = anthropicCache([req(first, 0, 0), req(later, 50 * 60_000)]);
    // The hour's write ends at the long marker; the five minutes' from there to the last marker.
    expect(one).toEqual({ total: endOf(first, 1), read: 0, writtenLong: endOf(first, 0), written: endOf(first, 1) - endOf(first, 0) });
    expect(two!.read).toBe(endOf(later, 0));
    expect(two!.writtenLong).toBe(0);
    // The hit at 50 minutes keeps it until 110; without the hit it would be gone at 61.
    expect(anthropicCache([req(first, 0, 0), req(later, 50 * 60_000), req(later, 105 * 60_000)])[2]!.read).toBe(endOf(later, 0));
    expect(anthropicCache([req(first, 0, 0), req(later, LONG_TTL_MS + 1)])[1]!.read).toBe(0);
    // The five-minute entry at the last marker is gone after five minutes, as before.
    expect(anthropicCache([req(first, 0, 0), req(first, TTL_MS + 1)])[1]!.read).toBe(endOf(first, 0));
    const d = inputDollars(one!, PRICES.anthropic);
    const perByte = 1 / 1e6 / BYTES_PER_TOKEN;
    expect(d.withCache).toBeCloseTo((one!.writtenLong! * 6 + one!.written * 3.75) * perByte, 12);
  });

  it("keeps models apart", () => {
    expect(anthropicCache([req([system], 0, 1, "a"), req([system], 10, 11, "b")])[1]!.read).toBe(0);
  });
});

describe("OpenAI's prompt cache", () => {
  it("reads the longest shared prefix, markers or not, in 128-token steps from 1,024, with no write", () => {
    const shared = b("s", MIN + 300 * BYTES_PER_TOKEN);
    const [one, two] = openaiCache([req([shared, b("u", 40)], 0), req([shared, b("v", 40)], 10)]);
    expect(one).toEqual({ total: endOf([shared, b("u", 40)], 1), read: 0, written: 0, writtenLong: 0 });
    // 1 + shared bytes in common (the leading newline), floored to 1,024 + 2 × 128 tokens.
    expect(two!.read).toBe(MIN + 256 * BYTES_PER_TOKEN);
    const d = inputDollars(two!, PRICES.openai);
    expect(d.withCache).toBeLessThan(d.uncached);
  });

  it("serves nothing under 1,024 tokens, past its lifetime or before the earlier response began", () => {
    const small = b("s", MIN - 10);
    expect(openaiCache([req([small], 0), req([small], 10)])[1]!.read).toBe(0);
    const big = b("s", MIN * 2);
    expect(openaiCache([req([big], 0, 0), req([big], TTL_MS + 1)])[1]!.read).toBe(0);
    expect(openaiCache([req([big], 0, 500), req([big], 100)])[1]!.read).toBe(0);
  });
});

describe("the blocks of a chat-completions body", () => {
  it("orders tools, system, conversation, and reads OpenCode's markers without their bytes", () => {
    const blocks = blocksOf({
      tools: [{ type: "function", function: { name: "t" } }],
      messages: [
        { role: "system", content: "S1", cache_control: { type: "ephemeral" } },
        {
          role: "user",
          content: [
            { type: "text", text: "U1" },
            { type: "text", text: "U2", cache_control: { type: "ephemeral" } },
          ],
        },
        { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "R", cache_control: { type: "ephemeral" } },
      ],
    });
    expect(blocks.map((x) => x.marker)).toEqual([false, true, false, true, false, false, true]);
    expect(blocks.map((x) => x.system === true)).toEqual([false, true, false, false, false, false, false]);
    expect(blocks.some((x) => x.text.includes("cache_control"))).toBe(false);
    expect(blocks[1]!.text).toContain("S1");
    expect(blocks[6]!.text).toContain('"R"');
  });
});

describe("what OpenCode would send otherwise", () => {
  const sys = (marker: boolean): Block => ({ text: '"s"', marker, system: true });
  const msg = (marker: boolean): Block => ({ text: '"m"', marker });

  it("an hour asked for on the system parts' markers only", () => {
    const [out] = longSystemMarkers([req([sys(true), sys(false), msg(true)])]);
    expect(out!.blocks.map((x) => x.long === true)).toEqual([true, false, false]);
  });

  it("automatic caching: one marker, at the last block, of five minutes or an hour", () => {
    const blocks = [sys(true), msg(true), msg(false)];
    const [five] = automaticMarker([req(blocks)], false);
    expect(five!.blocks.map((x) => [x.marker, x.long === true])).toEqual([
      [false, false],
      [false, false],
      [true, false],
    ]);
    const [hour] = automaticMarker([req(blocks)], true);
    expect(hour!.blocks.at(-1)).toMatchObject({ marker: true, long: true });
  });
});

describe("stages spaced apart", () => {
  it("moves each stage to start the gap after the previous one's last response began", () => {
    const r = (group: string, at: number) => ({ ...req([], at, at + 5), group });
    const out = spaced([r("a", 0), r("a", 10), r("b", 20), r("b", 30)], 360_000);
    expect(out.map((x) => x.at)).toEqual([0, 10, 15 + 360_000, 25 + 360_000]);
  });
});
