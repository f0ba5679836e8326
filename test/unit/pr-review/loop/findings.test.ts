import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { categoryCode, countByPriority, findingId, toFinding, uniqueById } from "../../../../src/pr-review/loop/findings.ts";

const sha8 = (text: string) => createHash("sha1").update(text).digest("hex").slice(0, 8);

describe("finding ids", () => {
  it("are CAT-<first 8 hex of sha1(category|file|line|title)>", () => {
    expect(findingId("security", "src/auth.ts", 42, "Hard-coded token")).toBe(`SEC-${sha8("security|src/auth.ts|42|Hard-coded token")}`);
    expect(findingId("quality", "a.ts", 1, "x")).toMatch(/^QUAL-[0-9a-f]{8}$/);
  });

  it("use an empty string for an unknown line", () => {
    expect(findingId("performance", "a.ts", null, "Slow loop")).toBe(`PERF-${sha8("performance|a.ts||Slow loop")}`);
    expect(findingId("performance", "a.ts", undefined, "Slow loop")).toBe(findingId("performance", "a.ts", null, "Slow loop"));
  });

  it("change with any part and stay the same across calls", () => {
    const base = findingId("quality", "a.ts", 3, "t");
    expect(findingId("quality", "a.ts", 3, "t")).toBe(base);
    expect(findingId("quality", "a.ts", 4, "t")).not.toBe(base);
    expect(findingId("quality", "b.ts", 3, "t")).not.toBe(base);
    expect(findingId("quality", "a.ts", 3, "u")).not.toBe(base);
  });

  it("short codes for known categories, the first letters otherwise", () => {
    expect(["security", "performance", "quality", "architecture", "testing", "docs", "other"].map(categoryCode)).toEqual([
      "SEC",
      "PERF",
      "QUAL",
      "ARCH",
      "TEST",
      "DOCS",
      "OTHER",
    ]);
    expect(categoryCode("Reliability")).toBe("RELI");
    expect(categoryCode("???")).toBe("OTHER");
  });

  it("ignore whatever id the model wrote", () => {
    const raw = {
      id: "SEC-001",
      priority: "P1" as const,
      category: "security",
      file: "a.ts",
      line: 2,
      title: "Leak",
      description: "d",
      suggestion: "s",
    };
    const f = toFinding(raw, "reviewer-1");
    expect(f.id).toBe(findingId("security", "a.ts", 2, "Leak"));
    expect(f.source).toEqual({ type: "agent", name: "reviewer-1", reviewId: null });
  });
});

describe("counting and deduplication", () => {
  const f = (priority: "P0" | "P1" | "P2" | "P3", title: string, name = "reviewer-1") =>
    toFinding({ priority, category: "quality", file: "a.ts", line: 1, title, description: "", suggestion: "" }, name);

  it("counts every finding, duplicates included", () => {
    expect(countByPriority([f("P1", "a"), f("P1", "a", "reviewer-2"), f("P3", "b")])).toEqual({ P0: 0, P1: 2, P2: 0, P3: 1 });
  });

  it("keeps one finding per id, the most urgent", () => {
    const unique = uniqueById([f("P2", "a"), f("P1", "b"), f("P2", "a", "reviewer-2")]);
    expect(unique.map((x) => [x.priority, x.title])).toEqual([
      ["P1", "b"],
      ["P2", "a"],
    ]);
  });
});
