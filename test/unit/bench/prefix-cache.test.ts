import { describe, expect, it } from "vitest";
import { cachedPrefixes, inputDollars, MIN_CACHED_BYTES, providerOrder, CACHE_TTL_MS } from "../../support/prefix-cache.ts";

const big = "x".repeat(MIN_CACHED_BYTES * 2);
const probe = (text: string, at = 0, model = "m1") => ({ at, model, text });

describe("the prompt-cache measure", () => {
  it("counts the prefix a later request shares with an earlier one", () => {
    const [first, second] = cachedPrefixes([probe(`${big}A tail`), probe(`${big}B other tail`)]);
    expect(first).toBe(0);
    expect(second).toBe(big.length);
  });

  it("gives zero when the first byte differs", () => {
    expect(cachedPrefixes([probe(`a${big}`), probe(`b${big}`)])).toEqual([0, 0]);
  });

  it("counts nothing under 1,024 tokens, past five minutes or across models", () => {
    const short = "y".repeat(MIN_CACHED_BYTES - 1);
    expect(cachedPrefixes([probe(`${short}1`), probe(`${short}2`)])).toEqual([0, 0]);
    expect(cachedPrefixes([probe(big, 0), probe(big, CACHE_TTL_MS + 1)])).toEqual([0, 0]);
    expect(cachedPrefixes([probe(big, 0, "m1"), probe(big, 1, "m2")])).toEqual([0, 0]);
  });

  it("takes the longest prefix among the earlier requests", () => {
    const a = `${big}same-long-part-1`;
    const b = `${big}same`;
    expect(cachedPrefixes([probe(b), probe(a), probe(`${big}same-long-part-2`)])).toEqual([0, big.length + 4, a.length - 1]);
  });

  it("orders a body as a provider reads it: tools, system, then the conversation", () => {
    const text = providerOrder({
      messages: [
        { role: "user", content: "u" },
        { role: "system", content: "s" },
      ],
      tools: [{ name: "t" }],
    });
    expect(text.indexOf('"t"')).toBeLessThan(text.indexOf('"s"'));
    expect(text.indexOf('"s"')).toBeLessThan(text.indexOf('"u"'));
  });

  it("bills cache reads at 0.1× and writes at 1.25× of the input price", () => {
    const d = inputDollars(4_000_000, 2_000_000, 3);
    expect(d.uncached).toBeCloseTo(3);
    expect(d.withCache).toBeCloseTo(0.15 + 1.875);
  });
});
