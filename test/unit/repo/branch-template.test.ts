import { describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { parseBranchName, renderBranchName, templatePattern, worktreeNameFor } from "../../../src/repo/index.ts";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isOttoError(error) ? error.code : "not an OttoError";
  }
  return undefined;
}

describe("branch_template", () => {
  it("renders {{name}}, and Go's spelling {{.name}}", () => {
    expect(renderBranchName("users/me/{{name}}", "fix-auth")).toBe("users/me/fix-auth");
    expect(renderBranchName("users/alex/{{.name}}", "fix-auth")).toBe("users/alex/fix-auth");
    expect(renderBranchName("feature/{{ .name }}-wip", "x")).toBe("feature/x-wip");
    expect(renderBranchName(undefined, "fix-auth")).toBe("fix-auth");
  });

  it("is strict: unknown variables and broken syntax are errors that say how to fix the template", () => {
    expect(codeOf(() => renderBranchName("users/{{user}}/{{name}}", "x"))).toBe("branch_template");
    expect(codeOf(() => renderBranchName("users/{{name", "x"))).toBe("branch_template");
  });

  it("refuses names that are not one safe path segment, and templates that make invalid branches", () => {
    for (const name of ["a/b", "../x", "-x", "a b", "x.lock", ""])
      expect(codeOf(() => renderBranchName("{{name}}", name))).toBe("worktree_name");
    expect(codeOf(() => renderBranchName("bad..{{name}}", "x"))).toBe("branch_name");
    expect(codeOf(() => renderBranchName("feature//{{name}}", "x"))).toBe("branch_name");
  });

  it("parses a branch back to its name, through a regex made from the template", () => {
    expect(parseBranchName("users/me/{{name}}", "users/me/fix-auth")).toBe("fix-auth");
    expect(parseBranchName("users/me/{{name}}", "users/you/fix-auth")).toBeUndefined();
    expect(parseBranchName("feat.{{name}}+x", "feat.a+x")).toBe("a");
    expect(parseBranchName("feat.{{name}}+x", "featXa+x")).toBeUndefined();
    expect(parseBranchName("{{name}}/{{name}}", "a/a")).toBe("a");
    expect(parseBranchName("{{name}}/{{name}}", "a/b")).toBeUndefined();
    expect(parseBranchName(undefined, "anything/at-all")).toBe("anything/at-all");
    expect(templatePattern("static-branch")).toBeUndefined();
  });

  it("names a worktree for any PR branch: the parsed name, else the branch made safe", () => {
    expect(worktreeNameFor("users/me/{{name}}", "users/me/fix-auth")).toBe("fix-auth");
    expect(worktreeNameFor("users/me/{{name}}", "dependabot/npm/lodash-4.17")).toBe("dependabot-npm-lodash-4.17");
    expect(worktreeNameFor("users/me/{{name}}", "users/me/deep/name")).toBe("deep-name");
    expect(worktreeNameFor(undefined, "feature/x")).toBe("feature-x");
    expect(worktreeNameFor(undefined, "..weird..lock")).toBe("weird");
  });
});
