import { describe, expect, it } from "vitest";
import { z } from "zod";
import { extractDocument, extractEnvelope, jsonCandidates, parseEnvelope, rescueJson } from "../../../src/session/index.ts";
import { formatZodIssues } from "../../../src/core/index.ts";

describe("extractEnvelope", () => {
  it("returns the last block, without a fence", () => {
    expect(extractEnvelope('BEGIN_JSON\n{"a":1}\nEND_JSON\nthen\nBEGIN_JSON\n```json\n{"a":2}\n```\nEND_JSON')).toBe('{"a":2}');
  });
  it("returns undefined without markers", () => {
    expect(extractEnvelope('{"a":1}')).toBeUndefined();
  });
});

describe("parseEnvelope", () => {
  const Schema = z.object({ a: z.number() });
  it("explains a missing block, bad JSON and a wrong shape", () => {
    const error = (text: string) => {
      const result = parseEnvelope(text, Schema);
      return result.ok ? "" : result.error;
    };
    expect(error("hi")).toContain("no BEGIN_JSON");
    expect(error("BEGIN_JSON {a:1} END_JSON")).toContain("not valid JSON");
    const wrong = parseEnvelope('BEGIN_JSON {"a":"1"} END_JSON', Schema);
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.issues[0]?.path).toEqual(["a"]);
  });
});

describe("best-effort extraction", () => {
  it("finds top-level JSON values, skipping prose in brackets and braces inside strings", () => {
    expect(jsonCandidates('See [the docs] and {"x": "a } b", "y": [1, {"z": 2}]} then [3]')).toEqual([
      { x: "a } b", y: [1, { z: 2 }] },
      [3],
    ]);
  });
  it("prefers the last candidate that matches the schema", () => {
    const Schema = z.object({ ok: z.boolean() });
    expect(rescueJson('{"ok": true} ... {"ok": false} ... {"other": 1}', Schema)).toEqual({ value: { ok: false } });
    expect(rescueJson("nothing here", Schema)).toBeUndefined();
  });
});

describe("extractDocument", () => {
  it("takes the last BEGIN_DOCUMENT block", () => {
    expect(extractDocument("Preamble\nBEGIN_DOCUMENT\n# Title\n\nBody\nEND_DOCUMENT\nBye")).toBe("# Title\n\nBody");
  });
  it("falls back to the text minus a preamble line and a fence", () => {
    expect(extractDocument("Here is the design:\n```markdown\n# Design\nText\n```")).toBe("# Design\nText");
    expect(extractDocument("# Design\nText")).toBe("# Design\nText");
  });
});

describe("formatZodIssues", () => {
  it("renders one line per issue with its path", () => {
    const result = z.object({ items: z.array(z.object({ id: z.string() })) }).safeParse({ items: [{ id: 1 }] });
    expect(result.success).toBe(false);
    if (!result.success) expect(formatZodIssues(result.error.issues)).toMatch(/^- items\[0\]\.id: Invalid input/);
  });
});
