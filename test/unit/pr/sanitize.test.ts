import { describe, expect, it } from "vitest";
import { DIFF_PLACEHOLDER, sanitizeForPost } from "../../../src/pr/sanitize.ts";

const ghp = `ghp_${"a1B2".repeat(9)}`;

describe("sanitizeForPost", () => {
  it("redacts token formats, AWS keys, private keys and configured secrets", () => {
    const text = [
      `token ${ghp}`,
      `pat github_pat_${"x".repeat(30)}`,
      "slack xoxb-1234567890-abcdefghij",
      "AKIAIOSFODNN7EXAMPLE",
      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----",
      "my pat is adopat-123456",
    ].join("\n");
    const out = sanitizeForPost(text, ["adopat-123456"]);
    for (const leaked of [ghp, "github_pat_", "xoxb-", "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI", "MIIEow", "adopat-123456"]) {
      expect(out).not.toContain(leaked);
    }
    expect(out).toContain("aws_secret_access_key = [REDACTED]");
  });

  it("replaces diff --git blocks, fenced or bare, and keeps the prose around them", () => {
    const fenced = "Fixed it:\n```diff\ndiff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n```\nThanks.";
    expect(sanitizeForPost(fenced)).toBe(`Fixed it:\n${DIFF_PLACEHOLDER}\nThanks.`);
    const bare = "Before\n\ndiff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n\nAfter";
    const out = sanitizeForPost(bare);
    expect(out).toContain("Before");
    expect(out).toContain("After");
    expect(out).toContain(DIFF_PLACEHOLDER);
    expect(out).not.toContain("+b");
  });

  it("leaves ordinary text alone", () => {
    expect(sanitizeForPost("Looks good; `git diff` shows one change.")).toBe("Looks good; `git diff` shows one change.");
  });
});
