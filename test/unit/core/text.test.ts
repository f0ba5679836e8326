import { describe, expect, it } from "vitest";
import { cell, cut, firstLine, oneLine } from "../../../src/core/index.ts";

describe("text cutting", () => {
  it("cuts to max characters, the last one an ellipsis, without a space before it", () => {
    expect(cut("abcdef", 6)).toBe("abcdef");
    expect(cut("abcdefg", 6)).toBe("abcde…");
    expect(cut("abcd efg", 6)).toBe("abcd…");
    expect(cut("anything")).toBe("anything");
  });

  it("puts text on one line", () => {
    expect(oneLine("  a\n\tb   c \r\n")).toBe("a b c");
    expect(oneLine("one two three", 8)).toBe("one two…");
  });

  it("takes the first non-empty line, trimmed", () => {
    expect(firstLine("\n\n  first line  \r\nsecond")).toBe("first line");
    expect(firstLine("   \n")).toBe("");
    expect(firstLine("a long first line", 7)).toBe("a long…");
  });

  it("makes a markdown table cell: one line, pipes escaped, cut before escaping", () => {
    expect(cell("a | b\nc")).toBe("a \\| b c");
    expect(cell("x|yyyyyy", 4)).toBe("x\\|y…");
  });
});
