import { describe, expect, it } from "vitest";
import { parseSelection } from "../../../src/pr-review/index.ts";

const ids = [1, 2, 3, 4, 5];

describe("parseSelection", () => {
  it("takes ids, ranges and all", () => {
    expect(parseSelection("1,3", ids)).toEqual([1, 3]);
    expect(parseSelection("3, 1 ,1", ids)).toEqual([1, 3]);
    expect(parseSelection("2-4,#5", ids)).toEqual([2, 3, 4, 5]);
    expect(parseSelection("all", ids)).toEqual(ids);
    expect(parseSelection("ALL", [2, 1])).toEqual([1, 2]);
  });

  it("refuses unknown ids and malformed input with the usage", () => {
    expect(() => parseSelection("1,9", ids)).toThrow(
      expect.objectContaining({ code: "usage", message: "There is no comment 9 in the draft." }),
    );
    expect(() => parseSelection("one", ids)).toThrow(expect.objectContaining({ code: "usage", message: "'one' is not a comment id." }));
    expect(() => parseSelection("4-2", ids)).toThrow(expect.objectContaining({ code: "usage" }));
    expect(() => parseSelection(" ", ids)).toThrow(
      expect.objectContaining({ code: "usage", fix: expect.stringContaining("(1-5)") as unknown }),
    );
    expect(() => parseSelection("1", [])).toThrow(expect.objectContaining({ code: "usage" }));
  });
});
