import { describe, expect, it } from "vitest";
import {
  describeWeakenings,
  detectWeakenedChecks,
  mentionedPaths,
  normalisePath,
  splitByCause,
  type ChangedFile,
  type ChangeSet,
  type Weakening,
} from "../../../src/workspace/index.ts";

/*
 * detectWeakenedChecks on change sets built in memory, rule by rule: the paths and statuses git
 * would report, a unified diff as `git diff --text` writes it and the manifests' texts.
 * detect-weakened-checks.test.ts reads the same change sets from real repositories; this file is
 * the fast one Stryker runs once per mutant (stryker.modules.mjs). One file on purpose: it is the
 * module's whole mutation test, one table per rule.
 */

/** The lines one file's diff removes and adds; `deleted` writes `+++ /dev/null` (keyed by the old path). */
interface Hunk {
  removed?: string[];
  added?: string[];
  deleted?: boolean;
}

function unifiedDiff(hunks: Record<string, Hunk>): string {
  return Object.entries(hunks)
    .map(([file, h]) =>
      [
        `diff --git a/${file} b/${file}`,
        `--- a/${file}`,
        h.deleted ? "+++ /dev/null" : `+++ b/${file}`,
        "@@ -1 +1 @@",
        " unchanged context",
        ...(h.removed ?? []).map((l) => `-${l}`),
        ...(h.added ?? []).map((l) => `+${l}`),
      ].join("\n"),
    )
    .join("\n");
}

function detect(files: ChangedFile[], hunks: Record<string, Hunk> = {}, contents: ChangeSet["contents"] = {}): Weakening[] {
  return detectWeakenedChecks({ files, diff: unifiedDiff(hunks), contents });
}

const modified = (path: string): ChangedFile => ({ path, status: "modified" });
const flag = (path: string, kind: Weakening["kind"], reason: string): Weakening => ({ path, kind, reason });
const ATTRIBUTES = "attributes decide how git shows and converts files (`-diff` hides a file's diff)";
const FLAKE = "added to a test: it hides a flaky failure instead of fixing it";
const PKG = (test: string): string => JSON.stringify({ name: "app", scripts: { test, lint: "eslint ." } }, null, 2);

describe("detectWeakenedChecks, rule by rule", () => {
  it("an empty change set flags nothing", () => {
    expect(detect([])).toEqual([]);
  });

  it(".gitattributes at any depth, and renamed away, with the status in the reason", () => {
    expect(detect([{ path: ".gitattributes", status: "added" }])).toEqual([
      flag(".gitattributes", "git_attributes", `.gitattributes added: ${ATTRIBUTES}`),
    ]);
    expect(detect([modified("src/.gitattributes")])).toEqual([
      flag("src/.gitattributes", "git_attributes", `.gitattributes modified: ${ATTRIBUTES}`),
    ]);
    expect(detect([{ path: "docs/attrs", status: "renamed", from: ".gitattributes" }])).toEqual([
      flag("docs/attrs", "git_attributes", `.gitattributes renamed: ${ATTRIBUTES}`),
    ]);
    expect(detect([{ path: "docs/attrs", status: "renamed", from: "lib/.gitattributes" }])).toHaveLength(1);
    // Only the file of that name: not a suffix of another name, not a backup of it.
    for (const path of ["notes/x.gitattributes", ".gitattributes.bak", "x.gitattributes"])
      expect(detect([modified(path)]), path).toEqual([]);
    expect(detect([{ path: "b", status: "renamed", from: "a.gitattributes" }])).toEqual([]);
    expect(detect([{ path: "b", status: "renamed", from: ".gitattributes.orig" }])).toEqual([]);
  });

  it("a deleted test file is one flag, whatever its diff removes; a deleted source or a changed test is none", () => {
    const body = { removed: ['it("adds", () => {', "  expect(add(1, 2)).toBe(3);", "});"], deleted: true };
    expect(detect([{ path: "test/a.test.ts", status: "deleted" }], { "test/a.test.ts": body })).toEqual([
      flag("test/a.test.ts", "test_deleted", "test file deleted"),
    ]);
    expect(detect([{ path: "src/a.ts", status: "deleted" }], { "src/a.ts": { removed: ["export const a = 1;"], deleted: true } })).toEqual(
      [],
    );
    expect(detect([modified("test/a.test.ts")])).toEqual([]);
    expect(detect([{ path: "test/a.test.ts", status: "added" }])).toEqual([]);
  });

  it("a test file renamed to a name no runner finds is flagged under its old name; other renames are not", () => {
    expect(detect([{ path: "test/a.test.ts.disabled", status: "renamed", from: "test/a.test.ts" }])).toEqual([
      flag("test/a.test.ts", "test_deleted", "test file renamed to test/a.test.ts.disabled, so the runner no longer finds it"),
    ]);
    expect(detect([{ path: "test/b.test.ts", status: "renamed", from: "test/a.test.ts" }])).toEqual([]);
    expect(detect([{ path: "src/b.ts", status: "renamed", from: "src/a.ts" }])).toEqual([]);
    expect(detect([{ path: "test/a.test.ts", status: "renamed", from: "src/a.ts" }])).toEqual([]);
  });

  it("CI configuration by its new or old path, once per file", () => {
    expect(detect([modified(".github/workflows/ci.yml")])).toEqual([
      flag(".github/workflows/ci.yml", "ci_config", "CI configuration modified"),
    ]);
    expect(detect([{ path: "old/ci.yml", status: "renamed", from: ".github/workflows/ci.yml" }])).toEqual([
      flag(".github/workflows/ci.yml", "ci_config", "CI configuration renamed"),
    ]);
    // Both paths are pipelines: one flag, under the new one.
    expect(detect([{ path: ".github/workflows/b.yml", status: "renamed", from: ".github/workflows/a.yml" }])).toEqual([
      flag(".github/workflows/b.yml", "ci_config", "CI configuration renamed"),
    ]);
    expect(detect([modified("src/ci.yml")])).toEqual([]);
  });

  it("check configuration by its new or old path", () => {
    expect(detect([modified("eslint.config.js")])).toEqual([
      flag("eslint.config.js", "check_config", "lint, type-check or test configuration modified"),
    ]);
    expect(detect([{ path: "old/eslintrc.bak", status: "renamed", from: ".eslintrc.json" }])).toEqual([
      flag("old/eslintrc.bak", "check_config", "lint, type-check or test configuration renamed"),
    ]);
    expect(detect([{ path: "eslint.config.js", status: "added" }])).toEqual([
      flag("eslint.config.js", "check_config", "lint, type-check or test configuration added"),
    ]);
  });

  it("a manifest's test script compared before and after, a renamed one against its old text", () => {
    expect(detect([modified("package.json")], {}, { "package.json": { before: PKG("vitest run"), after: PKG("exit 0") } })).toEqual([
      flag("package.json", "test_script", "package.json scripts changed: test"),
    ]);
    // Unchanged scripts: nothing, not an empty entry.
    expect(detect([modified("package.json")], {}, { "package.json": { before: PKG("vitest run"), after: PKG("vitest run") } })).toEqual([]);
    const renamed: ChangedFile = { path: "app/package.json", status: "renamed", from: "old/package.json" };
    expect(
      detect([renamed], {}, { "old/package.json": { before: PKG("vitest run") }, "app/package.json": { after: PKG("vitest run") } }),
    ).toEqual([]);
    expect(
      detect([renamed], {}, { "old/package.json": { before: PKG("vitest run") }, "app/package.json": { after: PKG("true") } }),
    ).toEqual([flag("app/package.json", "test_script", "package.json scripts changed: test")]);
    // Renamed from a file that is no manifest: no text before, every script is new.
    expect(
      detect([{ path: "package.json", status: "renamed", from: "package.txt" }], {}, { "package.json": { after: PKG("vitest run") } }),
    ).toEqual([flag("package.json", "test_script", "package.json scripts changed: lint, test")]);
    expect(detect([{ path: "Makefile", status: "deleted" }], {}, { Makefile: { before: "test:\n\tgo test ./...\n" } })).toEqual([
      flag("Makefile", "test_script", "Makefile test, check or lint targets changed"),
    ]);
  });

  it("a manifest taken out of the index but left on disk is a deletion and an addition, each judged alone", () => {
    // `git rm --cached package.json`: git reports it deleted, the file on disk is untracked (added); one entry in `contents` holds both texts.
    const contents = { "package.json": { before: PKG("vitest run"), after: PKG("vitest run") } };
    const files: ChangedFile[] = [
      { path: "package.json", status: "deleted" },
      { path: "package.json", status: "added" },
    ];
    expect(detect(files, {}, contents)).toEqual([
      flag("package.json", "test_script", "package.json scripts changed: lint, test"),
      flag("package.json", "test_script", "package.json scripts changed: lint, test"),
    ]);
    // `git mv package.json app/package.json` and a new package.json: the new one is not compared with the moved one.
    const moved: ChangedFile[] = [
      { path: "app/package.json", status: "renamed", from: "package.json" },
      { path: "package.json", status: "added" },
    ];
    const texts = {
      "package.json": { before: PKG("vitest run"), after: PKG("vitest run") },
      "app/package.json": { after: PKG("vitest run") },
    };
    expect(detect(moved, {}, texts)).toEqual([flag("package.json", "test_script", "package.json scripts changed: lint, test")]);
  });

  it("a test-retry plugin added to a dependency manifest, even one that reads as a document", () => {
    expect(detect([modified("requirements.txt")], { "requirements.txt": { added: ["pytest-rerunfailures==14.0"] } })).toEqual([
      flag("requirements.txt", "flake_hidden", "a test-retry plugin added: it hides a flaky test instead of fixing it"),
    ]);
    // Moved within the file, or named in code that is no manifest: nothing.
    expect(
      detect([modified("requirements-dev.txt")], { "requirements-dev.txt": { removed: ["flaky==3.8"], added: ["flaky==3.8"] } }),
    ).toEqual([]);
    expect(detect([modified("src/app.py")], { "src/app.py": { added: ["import flaky"] } })).toEqual([]);
    expect(detect([modified("pyproject.toml")], { "pyproject.toml": { added: ['  "flaky",'] } }, {})).toEqual([
      flag("pyproject.toml", "flake_hidden", "a test-retry plugin added: it hides a flaky test instead of fixing it"),
    ]);
  });

  it("documents may mention any marker", () => {
    const added = ['it.skip("x", () => {});', "// eslint-disable-next-line", "await sleep(100);"];
    expect(detect([modified("docs/testing.md")], { "docs/testing.md": { added } })).toEqual([]);
    expect(detect([modified("test/notes.txt")], { "test/notes.txt": { added } })).toEqual([]);
  });

  it("skip markers: the names in the reason, ambiguous ones only in test code, a moved one not new", () => {
    expect(detect([modified("test/a.test.ts")], { "test/a.test.ts": { added: ['it.skip("adds", () => {'] } })).toEqual([
      flag("test/a.test.ts", "skip_added", "skip or only markers added (.skip)"),
    ]);
    expect(
      detect([modified("test/a.test.ts")], { "test/a.test.ts": { added: ['it.skip("adds", () => {', 'describe.only("math", () => {'] } }),
    ).toEqual([flag("test/a.test.ts", "skip_added", "skip or only markers added (.skip, .only)")]);
    expect(
      detect([modified("test/a.test.ts")], {
        "test/a.test.ts": { removed: ['it.skip("adds", () => {'], added: ['it.skip("adds", () => {'] },
      }),
    ).toEqual([]);
    // Unambiguous spellings count anywhere; `t.Skip(` only in a test file.
    expect(detect([modified("src/a.ts")], { "src/a.ts": { added: ['it.skip("adds", () => {'] } })).toEqual([
      flag("src/a.ts", "skip_added", "skip or only markers added (.skip)"),
    ]);
    expect(detect([modified("src/a.go")], { "src/a.go": { added: ['\tt.Skip("later")'] } })).toEqual([]);
    expect(detect([modified("src/a_test.go")], { "src/a_test.go": { added: ['\tt.Skip("later")'] } })).toEqual([
      flag("src/a_test.go", "skip_added", "skip or only markers added (go t.Skip)"),
    ]);
  });

  it("suppressions anywhere, named in the reason; a moved one is not new", () => {
    expect(detect([modified("src/app.ts")], { "src/app.ts": { added: ["// eslint-disable-next-line", "// @ts-ignore"] } })).toEqual([
      flag(
        "src/app.ts",
        "suppression_added",
        "lint or type-check suppressions added (eslint-disable, @ts-ignore/@ts-expect-error/@ts-nocheck)",
      ),
    ]);
    expect(detect([modified("src/app.ts")], { "src/app.ts": { removed: ["// @ts-ignore"], added: ["// @ts-ignore"] } })).toEqual([]);
  });

  it("a sleep, a retry or a longer timeout in test code or check configuration, not in application code", () => {
    expect(detect([modified("test/a.test.ts")], { "test/a.test.ts": { added: ["  await sleep(100);", "  retries: 3,"] } })).toEqual([
      flag("test/a.test.ts", "flake_hidden", `sleep, retry ${FLAKE}`),
    ]);
    expect(detect([modified("vitest.config.ts")], { "vitest.config.ts": { added: ["    testTimeout: 60_000,"] } })).toEqual([
      flag("vitest.config.ts", "check_config", "lint, type-check or test configuration modified"),
      flag("vitest.config.ts", "flake_hidden", `longer timeout ${FLAKE}`),
    ]);
    expect(detect([modified("src/app.ts")], { "src/app.ts": { added: ["  await sleep(100);", "  timeout: 5000,"] } })).toEqual([]);
    expect(
      detect([modified("test/a.test.ts")], { "test/a.test.ts": { removed: ["  await sleep(100);"], added: ["  await sleep(100);"] } }),
    ).toEqual([]);
  });

  it("Rust keeps its unit tests in the source file: its test rules apply to any .rs file", () => {
    expect(detect([modified("src/lib.rs")], { "src/lib.rs": { added: ["    std::thread::sleep(d);"] } })).toEqual([
      flag("src/lib.rs", "flake_hidden", `sleep ${FLAKE}`),
    ]);
    expect(detect([modified("src/lib.rs")], { "src/lib.rs": { removed: ["#[test]", "    assert_eq!(f(), 1);"] } })).toEqual([
      flag("src/lib.rs", "tests_removed", "1 test case(s) removed"),
      flag("src/lib.rs", "assertions_removed", "1 assertion line(s) removed, 0 added"),
    ]);
    expect(detect([modified("src/lib.rs.orig")], { "src/lib.rs.orig": { added: ["    std::thread::sleep(d);"] } })).toEqual([]);
    expect(detect([modified("src/lib.rsx")], { "src/lib.rsx": { removed: ["#[test]"] } })).toEqual([]);
  });

  it("test cases and assertions removed are counted against those added", () => {
    const removed = ['it("a", () => {', 'it("b", () => {', "expect(a).toBe(1);", "expect(b).toBe(2);", "expect(c).toBe(3);"];
    expect(
      detect([modified("test/a.test.ts")], { "test/a.test.ts": { removed, added: ['it("c", () => {', "expect(d).toBe(4);"] } }),
    ).toEqual([
      flag("test/a.test.ts", "tests_removed", "1 test case(s) removed"),
      flag("test/a.test.ts", "assertions_removed", "3 assertion line(s) removed, 1 added"),
    ]);
    // As many back as gone: nothing.
    expect(
      detect([modified("test/a.test.ts")], {
        "test/a.test.ts": { removed: ['it("a", () => {', "expect(a).toBe(1);"], added: ['it("a2", () => {', "expect(a).toEqual(1);"] },
      }),
    ).toEqual([]);
    // More added than removed: nothing either.
    expect(
      detect([modified("test/a.test.ts")], {
        "test/a.test.ts": { removed: ['it("a", () => {'], added: ['it("a", () => {', 'it("b", () => {'] },
      }),
    ).toEqual([]);
    // In application code an `expect(` is not an assertion of a test.
    expect(detect([modified("src/a.ts")], { "src/a.ts": { removed: ["expect(a).toBe(1);", 'it("a", () => {'] } })).toEqual([]);
  });

  it("a renamed file's diff is found under its old path when the diff names only that one", () => {
    const renamed: ChangedFile = { path: "test/b.test.ts", status: "renamed", from: "test/a.test.ts" };
    expect(detect([renamed], { "test/a.test.ts": { removed: ["expect(a).toBe(1);"], deleted: true } })).toEqual([
      flag("test/b.test.ts", "assertions_removed", "1 assertion line(s) removed, 0 added"),
    ]);
    expect(detect([renamed], { "test/b.test.ts": { added: ['it.skip("a", () => {'] } })).toEqual([
      flag("test/b.test.ts", "skip_added", "skip or only markers added (.skip)"),
    ]);
  });

  it("several files: one entry per file and kind, in the order of the files", () => {
    const found = detect(
      [modified("test/a.test.ts"), modified(".github/workflows/ci.yml"), { path: "test/old.test.ts", status: "deleted" }],
      { "test/a.test.ts": { added: ['it.only("a", () => {'] } },
    );
    expect(found.map((f) => `${f.path} ${f.kind}`)).toEqual([
      "test/a.test.ts skip_added",
      ".github/workflows/ci.yml ci_config",
      "test/old.test.ts test_deleted",
    ]);
  });
});

describe("normalisePath, mentionedPaths, splitByCause, describeWeakenings", () => {
  it("normalises a path as an analysis writes it", () => {
    const cases: [string, string][] = [
      ["src/a.ts", "src/a.ts"],
      ["  src/a.ts  ", "src/a.ts"],
      ["`src/a.ts`", "src/a.ts"],
      ["**src/a.ts**,", "src/a.ts"],
      ["\"'src/a.ts'\"", "src/a.ts"],
      ["src/a.ts.;", "src/a.ts"],
      ["./src/a.ts", "src/a.ts"],
      ["'./src/a.ts:12:3'", "src/a.ts"],
      ["src/a.ts:12", "src/a.ts"],
      ["src/a.ts:123", "src/a.ts"],
      ["src/a.ts:12:345", "src/a.ts"],
      ["src\\a.ts", "src/a.ts"],
      ["src\\b\\a.ts", "src/b/a.ts"],
      ["../lib/a.ts", "../lib/a.ts"],
      ["src/./a.ts", "src/./a.ts"],
      ["host:8080/path", "host:8080/path"],
      ["a.ts:x", "a.ts:x"],
      ["a.ts:12:", "a.ts:12:"],
      ["x`y", "x`y"],
    ];
    for (const [text, want] of cases) expect(normalisePath(text), text).toBe(want);
  });

  it("finds the paths a text names, each once", () => {
    const cases: [string, string[]][] = [
      ["Please delete `test/old.test.ts` and fix src/a.py:12.", ["test/old.test.ts", "src/a.py"]],
      ["see .github/workflows/ci.yml, then README.md", [".github/workflows/ci.yml", "README.md"]],
      ["a/b/c.ts and a/b/c.ts again", ["a/b/c.ts"]],
      ["@scope/pkg-name/lib/index.js", ["@scope/pkg-name/lib/index.js"]],
      ["my-file.config.js", ["my-file.config.js"]],
      ["version 1.5 and 2.0", []],
      ["Say hi instead of hello.", []],
      ["https://x.io/y", ["x.io/y"]],
      ["src/a", ["src/a"]],
      ["x.y2 and x.2y", ["x.y2"]],
      ["__init__.py", ["__init__.py"]],
      ["see package.json and tsconfig.build.json", ["package.json", "tsconfig.build.json"]],
    ];
    for (const [text, want] of cases) expect(mentionedPaths(text), text).toEqual(want);
  });

  it("splits flags by the files an analysis named as the cause", () => {
    const flags = [
      flag("test/math.test.js", "test_deleted", "test file deleted"),
      flag(".github/workflows/ci.yml", "ci_config", "CI configuration modified"),
      flag("src/a.ts", "suppression_added", "lint or type-check suppressions added (eslint-disable)"),
    ];
    expect(splitByCause(flags, ["`./.github/workflows/ci.yml:12`", "src/a.ts", ""])).toEqual({
      refused: [flags[0]],
      allowed: [flags[1], flags[2]],
    });
    expect(splitByCause(flags, [])).toEqual({ refused: flags, allowed: [] });
  });

  it("describes flags one a file, joined", () => {
    expect(describeWeakenings([])).toBe("");
    expect(
      describeWeakenings([
        flag("a.test.ts", "test_deleted", "test file deleted"),
        flag("ci.yml", "ci_config", "CI configuration modified"),
      ]),
    ).toBe("a.test.ts: test file deleted; ci.yml: CI configuration modified");
  });
});
