import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OttoError, errorLine, errorText, exists, formatZodIssues, isPlainObject, isRecord, positionAt } from "../../../src/core/index.ts";

describe("errorText and errorLine", () => {
  it("drop the Error: prefix; errorLine keeps the first line only", () => {
    const error = new OttoError("x", "It broke.", "Run it again.");
    expect(errorText(error)).toBe("It broke.\nNext step: Run it again.");
    expect(errorLine(error)).toBe("It broke.");
    expect(errorText(new Error("plain"))).toBe("plain");
    expect(errorLine("a string\nsecond")).toBe("a string");
  });
});

describe("exists", () => {
  it("is true for a file and a folder, false for a missing path", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "otto-exists-"));
    try {
      await fs.writeFile(path.join(dir, "f"), "");
      expect(await exists(dir)).toBe(true);
      expect(await exists(path.join(dir, "f"))).toBe(true);
      expect(await exists(path.join(dir, "missing"))).toBe(false);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe("positionAt", () => {
  it("counts lines and columns from 1, an offset past the end at the end", () => {
    const text = "ab\ncd\n";
    expect(positionAt(text, 0)).toEqual({ line: 1, column: 1 });
    expect(positionAt(text, 4)).toEqual({ line: 2, column: 2 });
    expect(positionAt(text, 99)).toEqual({ line: 3, column: 1 });
  });
});

describe("isRecord and isPlainObject", () => {
  it("tell objects from arrays, null and class instances", () => {
    expect(isRecord({ a: 1 })).toBe(true);
    expect(isRecord([])).toBe(false);
    expect(isRecord(null)).toBe(false);
    expect(isRecord(new Date())).toBe(true);
    expect(isPlainObject(new Date())).toBe(false);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject([])).toBe(false);
  });
});

describe("formatZodIssues", () => {
  const issues = () => {
    const result = z.object({ items: z.array(z.object({ id: z.string() })), name: z.string() }).safeParse({ items: [{ id: 1 }] });
    if (result.success) throw new Error("expected a failure");
    return result.error.issues;
  };

  it("writes one line per issue with its path", () => {
    const text = formatZodIssues(issues());
    expect(text.split("\n")).toHaveLength(2);
    expect(text).toMatch(/^- items\[0\]\.id: /);
    expect(text).toMatch(/\n- name: /);
  });

  it("writes them on one line when inline", () => {
    expect(formatZodIssues(issues(), { inline: true })).toMatch(/^items\[0\]\.id: .+; name: /);
    const root = z.string().safeParse(1);
    if (!root.success) expect(formatZodIssues(root.error.issues, { inline: true })).toMatch(/^\(root\): /);
  });
});
