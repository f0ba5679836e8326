import { describe, expect, it } from "vitest";
import { REDACTED, redact } from "../../../src/core/redact.ts";

describe("redact", () => {
  it.each([
    "xoxb-123456789012-abcdefghijkl",
    "xoxp-123456789012-abcdefghijkl",
    "xoxa-2-123456789012-abcdefghijkl",
    "xoxc-123456789012-abcdefghijkl",
    "xoxd-abcdefghijkl1234567890",
    "xoxs-123456789012-abcdefghijkl",
    "xoxe-1-abcdefghijkl1234567890",
    "xoxe.xoxp-1-abcdefghijkl1234567890",
  ])("redacts the Slack token %s", (token) => {
    const out = redact(`token: ${token} (end)`);
    expect(out).toBe(`token: ${REDACTED} (end)`);
  });

  it("leaves words that only look alike", () => {
    expect(redact("the xox-pattern and xoxb-short")).toBe("the xox-pattern and xoxb-short");
  });
});
