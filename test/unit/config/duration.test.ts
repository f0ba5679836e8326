import { describe, expect, it } from "vitest";
import { parseDuration, tryParseDuration } from "../../../src/config/index.ts";
import type { OttoError } from "../../../src/core/index.ts";

describe("parseDuration", () => {
  it("reads Go-style durations", () => {
    expect(parseDuration("30m")).toBe(1_800_000);
    expect(parseDuration("2m")).toBe(120_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("250ms")).toBe(250);
    expect(parseDuration("1.5h")).toBe(5_400_000);
    expect(parseDuration("1d")).toBe(86_400_000);
  });

  it("rejects anything else with a fix", () => {
    expect(tryParseDuration("30")).toBeUndefined();
    expect(tryParseDuration("soon")).toBeUndefined();
    expect(tryParseDuration("-1m")).toBeUndefined();
    expect(() => parseDuration("thirty minutes")).toThrow("'thirty minutes' is not a duration.");
    try {
      parseDuration("thirty minutes");
    } catch (error) {
      expect(error).toMatchObject({ code: "invalid_duration" });
      expect((error as OttoError).fix).toContain("30s");
    }
  });
});
