import { describe, expect, it } from "vitest";
import { globPattern, managedBranchMatcher, parseBranchRefs } from "../../../src/repo/index.ts";
import { parseStatus, parseWorktreeList } from "../../../src/workspace/index.ts";

describe("parseStatus (git status --porcelain=v2 --branch)", () => {
  it("reads branch, head, upstream, ahead/behind and every kind of change", () => {
    const text = [
      "# branch.oid 1111111111111111111111111111111111111111",
      "# branch.head users/me/fix auth",
      "# branch.upstream origin/users/me/fix auth",
      "# branch.ab +2 -1",
      "1 .M N... 100644 100644 100644 aaaa bbbb src/a file.ts",
      "2 R. N... 100644 100644 100644 aaaa bbbb R100 new name.ts\told name.ts",
      "u UU N... 100644 100644 100644 100644 aaaa bbbb cccc conflict.ts",
      "? notes.txt",
      "",
    ].join("\n");
    expect(parseStatus(text)).toEqual({
      branch: "users/me/fix auth",
      head: "1111111111111111111111111111111111111111",
      upstream: "origin/users/me/fix auth",
      ahead: 2,
      behind: 1,
      dirty: true,
      changes: [".M src/a file.ts", "R. new name.ts", "UU conflict.ts", "?? notes.txt"],
    });
  });

  it("detached, no commits, no upstream, clean", () => {
    expect(parseStatus("# branch.oid (initial)\n# branch.head (detached)\n")).toEqual({
      branch: undefined,
      head: undefined,
      upstream: undefined,
      ahead: undefined,
      behind: undefined,
      dirty: false,
      changes: [],
    });
  });
});

describe("parseWorktreeList (git worktree list --porcelain)", () => {
  it("reads main, linked, detached, locked and prunable worktrees", () => {
    const text = [
      "worktree /src/app",
      "HEAD 1111111111111111111111111111111111111111",
      "branch refs/heads/main",
      "",
      "worktree /src/app-wt/fix-auth",
      "HEAD 2222222222222222222222222222222222222222",
      "branch refs/heads/users/me/fix-auth",
      "locked reason here",
      "",
      "worktree /src/app-wt/gone",
      "HEAD 3333333333333333333333333333333333333333",
      "detached",
      "prunable gitdir file points to non-existent location",
      "",
    ].join("\n");
    const list = parseWorktreeList(text);
    expect(list.map((w) => [w.path, w.branch, w.detached, w.locked, w.prunable])).toEqual([
      ["/src/app", "main", false, false, false],
      ["/src/app-wt/fix-auth", "users/me/fix-auth", false, true, false],
      ["/src/app-wt/gone", undefined, true, false, true],
    ]);
    expect(list[0]?.head).toBe("1111111111111111111111111111111111111111");
  });
});

describe("branch refs and patterns", () => {
  it("parses for-each-ref tracking states", () => {
    const text = ["main\0aaa\0origin/main\0", "a\0bbb\0origin/a\0[ahead 2, behind 3]", "b\0ccc\0origin/b\0[gone]", "c\0ddd\0\0", ""].join(
      "\n",
    );
    expect(parseBranchRefs(text).map((b) => [b.name, b.upstream, b.ahead, b.behind, b.gone])).toEqual([
      ["main", "origin/main", 0, 0, false],
      ["a", "origin/a", 2, 3, false],
      ["b", "origin/b", undefined, undefined, true],
      ["c", undefined, undefined, undefined, false],
    ]);
  });

  it("globs match within a segment with *, across segments with **", () => {
    expect(globPattern("feature/*").test("feature/x")).toBe(true);
    expect(globPattern("feature/*").test("feature/x/y")).toBe(false);
    expect(globPattern("feature/**").test("feature/x/y")).toBe(true);
    expect(globPattern("v?.x").test("v1.x")).toBe(true);
    expect(globPattern("v?.x").test("v1Ax")).toBe(false);
    const managed = managedBranchMatcher({ branch_template: "users/me/{{name}}", branch_patterns: ["hotfix/*"] });
    expect(["users/me/a", "hotfix/b", "main", "users/you/a"].map(managed)).toEqual([true, true, false, false]);
  });
});
