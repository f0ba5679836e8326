import { describe, expect, it } from "vitest";
import { capChars, cleanLine, keptRanges, trimLog } from "../../../../src/pr/fix/index.ts";

const noise = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `step output line ${from + i}`);

describe("trimLog", () => {
  it("keeps error lines with their context and the end of the log, and says how much it skipped", () => {
    const lines = [
      ...noise(100),
      "src/auth.ts:12:5 - error TS2322: Type 'string' is not assignable to type 'number'.",
      ...noise(200, 100),
      "##[error]Process completed with exit code 2.",
    ];
    const out = trimLog(lines.join("\n"), { context: 2, tail: 3 });
    expect(out).toContain("… 98 lines skipped …");
    expect(out).toContain("step output line 98\nstep output line 99\nsrc/auth.ts:12:5 - error TS2322");
    expect(out).toContain("error TS2322: Type 'string' is not assignable to type 'number'.\nstep output line 100\nstep output line 101\n");
    expect(out.endsWith("step output line 298\nstep output line 299\n##[error]Process completed with exit code 2.")).toBe(true);
    expect(out).not.toContain("step output line 50");
    expect(out.split("\n").length).toBeLessThan(20);
  });

  it("strips GitHub's timestamps and ANSI colours", () => {
    expect(cleanLine("2026-02-06T10:00:01.1234567Z \u001b[31mFAIL\u001b[0m src/a.test.ts")).toBe("FAIL src/a.test.ts");
    expect(trimLog("2026-02-06T10:00:01.1234567Z npm ERR! code ELIFECYCLE\n")).toBe("npm ERR! code ELIFECYCLE");
  });

  it("keeps only the tail when nothing looks like an error", () => {
    const out = trimLog(noise(100).join("\n"), { tail: 5 });
    expect(out).toBe(["… 95 lines skipped …", ...noise(5, 95)].join("\n"));
  });

  it("merges overlapping windows", () => {
    const lines = ["a", "Error: one", "b", "Error: two", "c", ...noise(20)];
    expect(keptRanges(lines, 1, 1)).toEqual([
      [0, 4],
      [24, 24],
    ]);
  });

  it("caps the size, keeping the first errors and the end, cut at line boundaries", () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `Error: failure number ${i}`);
    const out = trimLog(lines.join("\n"), { maxChars: 2000 });
    expect(out.length).toBeLessThanOrEqual(2000);
    expect(out.startsWith("Error: failure number 0\n")).toBe(true);
    expect(out.endsWith("Error: failure number 4999")).toBe(true);
    expect(out).toMatch(/\n… \d+ characters cut …\nError: failure number \d+\n/);
  });

  it("leaves short text alone", () => {
    expect(capChars("short", 100)).toBe("short");
  });
});
