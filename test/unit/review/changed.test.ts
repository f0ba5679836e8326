import { describe, expect, it } from "vitest";
import { changedSubstantially, lineChangeRatio, SUBSTANTIAL_CHANGE } from "../../../src/review/index.ts";

const doc = (lines: string[]) => lines.join("\n");
const ten = Array.from({ length: 10 }, (_, i) => `line ${i}`);

describe("changedSubstantially", () => {
  it("ignores whitespace, indentation and blank lines", () => {
    expect(lineChangeRatio(doc(ten), `\n${ten.map((l) => `  ${l.replace(" ", "   ")}`).join("\n\n")}\n`)).toBe(0);
  });

  it("measures removed plus added lines over both versions", () => {
    const oneReplaced = ten.map((l, i) => (i === 0 ? "new line" : l));
    expect(lineChangeRatio(doc(ten), doc(oneReplaced))).toBeCloseTo(2 / 20);
    expect(lineChangeRatio(doc(ten), doc(["other"]))).toBe(1);
    expect(lineChangeRatio("", "")).toBe(0);
  });

  it(`counts a quarter of the lines replaced (threshold ${SUBSTANTIAL_CHANGE}) as substantial`, () => {
    const replace = (n: number) => doc(ten.map((l, i) => (i < n ? `rewritten ${i}` : l)));
    expect(changedSubstantially(doc(ten), replace(2))).toBe(false);
    expect(changedSubstantially(doc(ten), replace(3))).toBe(true);
  });

  it("treats a moved block as a change of the moved lines only", () => {
    const moved = [...ten.slice(1), ten[0] ?? ""];
    expect(lineChangeRatio(doc(ten), doc(moved))).toBeCloseTo(2 / 20);
  });
});
