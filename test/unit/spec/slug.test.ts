import { describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/errors.ts";
import { assertSafeSlug, slugFromPrompt } from "../../../src/spec/index.ts";

describe("slugFromPrompt", () => {
  it.each([
    ["Add JWT-based authentication to the API", "add-jwt-based-authentication-api"],
    ["Add rate limiting to the API gateway", "add-rate-limiting-api-gateway"],
    ["  Fix   the login   bug!!  ", "fix-login-bug"],
    ["Café résumé naïve", "cafe-resume-naive"],
    ["Please make sure that we migrate the billing service to Postgres 16", "migrate-billing-service-postgres-16"],
    ["the and of", "the-and-of"],
    ["添加认证", "spec"],
    ["Don't break login", "dont-break-login"],
    ["Fix the user’s page", "fix-users-page"],
    ["", "spec"],
    ["!!!", "spec"],
  ])("%j → %j", (prompt, slug) => {
    expect(slugFromPrompt(prompt, [])).toBe(slug);
  });

  it("keeps at most 5 words and 50 characters", () => {
    expect(slugFromPrompt("one two three four five six seven")).toBe("one-two-three-four-five");
    const long = slugFromPrompt("internationalization localization accessibility performance observability");
    expect(long.length).toBeLessThanOrEqual(50);
    expect(long).toBe("internationalization-localization-accessibility");
    expect(slugFromPrompt("a".repeat(80))).toBe("a".repeat(50));
  });

  it("appends -2, -3 … to stay unique, within 50 characters", () => {
    expect(slugFromPrompt("Fix login", ["fix-login"])).toBe("fix-login-2");
    expect(slugFromPrompt("Fix login", ["fix-login", "fix-login-2"])).toBe("fix-login-3");
    expect(slugFromPrompt("", ["spec"])).toBe("spec-2");
    const long = slugFromPrompt("a".repeat(80), ["a".repeat(50)]);
    expect(long).toBe(`${"a".repeat(48)}-2`);
  });

  it("always produces a safe slug", () => {
    for (const prompt of ["../../etc/passwd", "C:\\Windows", ".hidden dir", "-flag", "UPPER case"]) {
      const slug = slugFromPrompt(prompt);
      expect(assertSafeSlug(slug)).toBe(slug);
    }
  });
});

describe("assertSafeSlug", () => {
  it.each(["add-auth", "a", "rate", "v2-api"])("accepts %j", (slug) => {
    expect(assertSafeSlug(slug)).toBe(slug);
  });

  it.each([
    ["", "it is empty"],
    ["  ", "it is empty"],
    ["..", "not a path"],
    ["../etc", "not a path"],
    ["a/b", "not a path"],
    ["a\\b", "not a path"],
    ["/abs", "absolute path"],
    ["C:\\specs", "absolute path"],
    [".hidden", "must not start with '.'"],
    ["Add-Auth", "lowercase letters"],
    ["add auth", "lowercase letters"],
    ["-rf", "lowercase letters"],
    ["add_auth", "lowercase letters"],
  ])("rejects %j (%s)", (input, why) => {
    try {
      assertSafeSlug(input);
      expect.unreachable();
    } catch (error) {
      expect(isOttoError(error) && error.code).toBe("invalid_slug");
      expect((error as Error).message).toContain(`Invalid spec slug '${input}'`);
      expect((error as Error).message).toContain(why);
      expect(isOttoError(error) && error.fix).toBe("Run /otto-spec list to see the spec slugs");
    }
  });
});
