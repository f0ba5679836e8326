import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  describeChangeSet,
  detectWeakenedChecks,
  isCheckFile,
  isTestFile,
  mentionedPaths,
  readChangeSet,
  snapshotTree,
  runGit,
  splitByCause,
  type Weakening,
} from "../../../src/workspace/index.ts";
import { createRepo, gitEnv, writeFiles, type Repo } from "../../support/git.ts";

/*
 * The detector of fixes that weaken a project's checks, on real git: a repository with the files
 * before, the edits a session would make, the change set read as otto reads it, and what is flagged.
 */

const env = gitEnv();
const TEST = `import { add } from "../src/math.js";\n\ndescribe("add", () => {\n  it("adds two numbers", () => {\n    expect(add(1, 2)).toBe(3);\n    expect(add(0, 0)).toBe(0);\n  });\n});\n`;
const PKG = JSON.stringify({ name: "app", scripts: { test: "vitest run", lint: "eslint ." }, dependencies: { zod: "4.0.0" } }, null, 2);

type Edit = Record<string, string | null | { renameTo: string }>;

describe("detectWeakenedChecks on real change sets", () => {
  let repo: Repo | undefined;
  afterEach(() => repo?.cleanup());

  async function flags(before: Record<string, string>, edits: Edit, options: { commit?: boolean } = {}): Promise<Weakening[]> {
    // A test may call this more than once: the repo of the call before is done with.
    repo?.cleanup();
    repo = await createRepo({ files: { "README.md": "# app\n", ...before }, remote: false });
    const since = await repo.git(["rev-parse", "HEAD"]);
    const baseline = await snapshotTree((args, o) => runGit(args, { ...o, env }), repo.dir);
    for (const [file, edit] of Object.entries(edits)) {
      const at = path.join(repo.dir, file);
      if (edit === null) fs.rmSync(at);
      else if (typeof edit === "string") writeFiles(repo.dir, { [file]: edit });
      else {
        fs.mkdirSync(path.dirname(path.join(repo.dir, edit.renameTo)), { recursive: true });
        await repo.git(["mv", file, edit.renameTo]);
      }
    }
    // A session may commit its own work: what it committed counts the same.
    if (options.commit) await repo.commit("session's own commit");
    return detectWeakenedChecks(await readChangeSet({ dir: repo.dir, since, baseline, env }));
  }
  const kinds = (list: Weakening[]): string[] => list.map((f) => `${f.path} ${f.kind}`);

  it("a deleted test file, in each language's naming", async () => {
    const files = {
      "test/math.test.js": TEST,
      "src/__tests__/a.js": "it('x', () => {});\n",
      "pkg/test_api.py": "def test_x():\n    assert True\n",
      "pkg/api_test.py": "def test_y():\n    assert True\n",
      "go/math_test.go": "package m\n",
      "tests/integration.rs": "#[test]\nfn x() {}\n",
      "src/test/java/AppTest.java": "class AppTest {}\n",
      "spec/user_spec.rb": "describe User do\nend\n",
      "App.Tests/MathTests.cs": "class MathTests {}\n",
    };
    const edits = Object.fromEntries(Object.keys(files).map((f) => [f, null]));
    const found = await flags(files, edits);
    expect(kinds(found).sort()).toEqual(
      Object.keys(files)
        .map((f) => `${f} test_deleted`)
        .sort(),
    );
  });

  it("a test file renamed out of the runner's sight (committed by the session) is flagged under its old name", async () => {
    const found = await flags(
      { "test/math.test.js": TEST },
      { "test/math.test.js": { renameTo: "test/math.js.disabled" } },
      { commit: true },
    );
    expect(found).toEqual([
      {
        path: "test/math.test.js",
        kind: "test_deleted",
        reason: "test file renamed to test/math.js.disabled, so the runner no longer finds it",
      },
    ]);
  });

  it("skip and only markers across frameworks", async () => {
    const cases: Record<string, [string, string]> = {
      "test/a.test.js": [TEST, TEST.replace('it("adds', 'it.skip("adds')],
      "test/b.spec.ts": [TEST, TEST.replace('describe("add"', 'describe.only("add"')],
      "test/c.test.ts": [TEST, TEST.replace('it("adds', 'xit("adds')],
      "test/d.test.ts": [TEST, `${TEST}test.todo("later");\n`],
      "tests/test_e.py": [
        "def test_x():\n    assert f() == 1\n",
        "import pytest\n\n@pytest.mark.skip(reason='flaky')\ndef test_x():\n    assert f() == 1\n",
      ],
      "tests/test_f.py": [
        "class T(unittest.TestCase):\n    def test_x(self):\n        self.assertEqual(f(), 1)\n",
        "class T(unittest.TestCase):\n    @unittest.skip('later')\n    def test_x(self):\n        self.assertEqual(f(), 1)\n",
      ],
      "m/g_test.go": [
        'func TestX(t *testing.T) {\n\tif f() != 1 {\n\t\tt.Fatal("no")\n\t}\n}\n',
        'func TestX(t *testing.T) {\n\tt.Skip("later")\n\tif f() != 1 {\n\t\tt.Fatal("no")\n\t}\n}\n',
      ],
      "src/lib.rs": ["#[test]\nfn x() {\n    assert_eq!(f(), 1);\n}\n", "#[test]\n#[ignore]\nfn x() {\n    assert_eq!(f(), 1);\n}\n"],
      "src/test/java/HTest.java": ["@Test\nvoid x() { assertEquals(1, f()); }\n", "@Disabled\n@Test\nvoid x() { assertEquals(1, f()); }\n"],
      "spec/i_spec.rb": ["it 'works' do\n  expect(f).to eq(1)\nend\n", "it 'works', skip: true do\n  expect(f).to eq(1)\nend\n"],
      "App.Tests/JTests.cs": [
        "[Fact]\npublic void X() { Assert.Equal(1, F()); }\n",
        '[Fact(Skip = "later")]\npublic void X() { Assert.Equal(1, F()); }\n',
      ],
    };
    const before = Object.fromEntries(Object.entries(cases).map(([f, [b]]) => [f, b]));
    const after = Object.fromEntries(Object.entries(cases).map(([f, [, a]]) => [f, a]));
    const found = await flags(before, after);
    expect(kinds(found.filter((f) => f.kind === "skip_added")).sort()).toEqual(
      Object.keys(cases)
        .map((f) => `${f} skip_added`)
        .sort(),
    );
    expect(found.filter((f) => f.kind !== "skip_added")).toEqual([]);
  });

  it("assertions and test cases removed from a test file", async () => {
    const found = await flags(
      { "test/math.test.js": TEST, "tests/test_api.py": "def test_a():\n    assert f() == 1\n\ndef test_b():\n    assert g() == 2\n" },
      {
        "test/math.test.js": TEST.replace("    expect(add(0, 0)).toBe(0);\n", ""),
        "tests/test_api.py": "def test_a():\n    assert f() == 1\n",
      },
    );
    expect(kinds(found).sort()).toEqual([
      "test/math.test.js assertions_removed",
      "tests/test_api.py assertions_removed",
      "tests/test_api.py tests_removed",
    ]);
    expect(found.find((f) => f.path === "test/math.test.js")?.reason).toBe("1 assertion line(s) removed, 0 added");
  });

  it("CI configuration, package scripts, lint and test configuration, suppressions, .gitattributes", async () => {
    const found = await flags(
      {
        ".github/workflows/ci.yml": "jobs:\n  test:\n    steps:\n      - run: npm test\n",
        "azure-pipelines.yml": "steps:\n- script: npm test\n",
        "package.json": PKG,
        "eslint.config.js": "export default [{ rules: { 'no-console': 'error' } }];\n",
        "pyproject.toml": '[project]\nname = "app"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
        Makefile: "build:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n",
        "src/app.ts": "export const x = 1;\n",
      },
      {
        ".github/workflows/ci.yml": "jobs:\n  test:\n    steps:\n      - run: npm test || true\n",
        "azure-pipelines.yml": "steps:\n- script: echo ok\n",
        ".gitlab-ci.yml": "test:\n  script: [true]\n",
        "package.json": PKG.replace('"vitest run"', '"exit 0"'),
        "eslint.config.js": "export default [{ rules: { 'no-console': 'off' } }];\n",
        "pyproject.toml": '[project]\nname = "app"\n\n[tool.pytest.ini_options]\naddopts = "-q --ignore=tests"\n',
        Makefile: "build:\n\tgo build ./...\n\ntest:\n\ttrue\n",
        "src/app.ts": "// eslint-disable-next-line\nexport const x: any = 1;\n",
        "src/.gitattributes": "*.ts -diff\n",
      },
    );
    expect(kinds(found).sort()).toEqual(
      [
        ".github/workflows/ci.yml ci_config",
        "azure-pipelines.yml ci_config",
        ".gitlab-ci.yml ci_config",
        "package.json test_script",
        "eslint.config.js check_config",
        "pyproject.toml check_config",
        "Makefile test_script",
        "src/app.ts suppression_added",
        "src/.gitattributes git_attributes",
      ].sort(),
    );
    expect(found.find((f) => f.path === "package.json")?.reason).toBe("package.json scripts changed: test");
  });

  it("near misses: a new test, a changed assertion, a dependency bump, code fixed, other pyproject sections, docs that mention it.skip", async () => {
    const found = await flags(
      {
        "test/math.test.js": TEST,
        "package.json": PKG,
        "pyproject.toml": '[project]\nversion = "1.0.0"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
        "src/math.js": "export const add = (a, b) => a - b;\n",
        "docs/testing.md": "# Testing\n",
        ".github/workflows/ci.yml": "jobs: {}\n",
        "src/process.js": "export const exit = (code) => process.exit(code);\n",
      },
      {
        "test/math.test.js": TEST.replace("toBe(0)", "toStrictEqual(0)"),
        "test/more.test.js": 'it("adds negatives", () => {\n  expect(add(-1, -2)).toBe(-3);\n});\n',
        "tests/test_new.py": "def test_new():\n    assert True\n",
        "package.json": PKG.replace('"zod": "4.0.0"', '"zod": "4.1.0"'),
        "pyproject.toml": '[project]\nversion = "1.0.1"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n',
        "src/math.js": "export const add = (a, b) => a + b;\n",
        "docs/testing.md": "# Testing\n\nNever use `it.skip` or `@pytest.mark.skip` to hide a failure.\n",
        "src/process.js": "export const exit = (code) => process.exit(code ?? 0);\nconst fixit = (x) => x;\n",
      },
    );
    expect(found).toEqual([]);
  });

  it("a moved skip is not a new one; a test moved between files is not a removal", async () => {
    const skipped = TEST.replace('it("adds', 'it.skip("adds');
    const found = await flags({ "test/a.test.js": skipped, "test/b.test.js": "" }, { "test/a.test.js": "", "test/b.test.js": skipped });
    // Per file: a.test.js lost its tests (flagged), b.test.js gained a skip (flagged): moving tests is for the analysis to name.
    expect(kinds(found).sort()).toEqual(["test/a.test.js assertions_removed", "test/a.test.js tests_removed", "test/b.test.js skip_added"]);
    const same = await flags({ "test/a.test.js": `${skipped}\n// end\n` }, { "test/a.test.js": `// start\n${skipped}` });
    expect(same).toEqual([]);
  });

  it("-diff in .gitattributes or .git/info/attributes cannot hide the change: the diff is read as text", async () => {
    repo = await createRepo({ files: { "test/math.test.js": TEST, ".gitattributes": "*.test.js -diff\n" }, remote: false });
    fs.writeFileSync(path.join(repo.dir, ".git/info/attributes"), "*.js -diff\n");
    const since = await repo.git(["rev-parse", "HEAD"]);
    fs.writeFileSync(path.join(repo.dir, "test/math.test.js"), TEST.replace('it("adds', 'it.skip("adds'));
    // Without the flags, git shows nothing a reviewer could read.
    expect(await repo.git(["diff"])).toContain("Binary files");
    const change = await readChangeSet({ dir: repo.dir, since, baseline: { entries: {} }, env });
    expect(change.diff).toContain('+  it.skip("adds two numbers"');
    expect(describeChangeSet(change, 30_000)).toMatch(/^modified test\/math\.test\.js\n\ndiff --git a\/test\/math\.test\.js/);
    expect(kinds(detectWeakenedChecks(change))).toEqual(["test/math.test.js skip_added"]);
  });

  it("an untracked new file is read too (new CI workflow, new skip in a new test file)", async () => {
    const found = await flags({}, { ".github/workflows/green.yml": "on: push\n", "test/new.test.js": 'it.skip("x", () => {});\n' });
    expect(kinds(found).sort()).toEqual([".github/workflows/green.yml ci_config", "test/new.test.js skip_added"]);
  });

  it("otto's own .otto/otto.jsonc with pr.verify and spec.verify rewritten is check configuration", async () => {
    const config = (verify: string): string => `{\n  "pr": { "verify": ["${verify}"] },\n  "spec": { "verify": ["${verify}"] }\n}\n`;
    const found = await flags({ ".otto/otto.jsonc": config("npm test") }, { ".otto/otto.jsonc": config("true") });
    expect(kinds(found)).toEqual([".otto/otto.jsonc check_config"]);
    expect(isCheckFile(".otto/otto.jsonc")).toBe(true);
  });
});

describe("isTestFile, mentionedPaths and splitByCause", () => {
  it("reads the paths a reviewer's words name", () => {
    expect(
      mentionedPaths("Please delete `test/old.test.ts` and fix src/a.py:12; see https://x.io/y and .github/workflows/ci.yml."),
    ).toEqual(expect.arrayContaining(["test/old.test.ts", "src/a.py", ".github/workflows/ci.yml"]));
    expect(mentionedPaths("Say hi instead of hello.")).toEqual([]);
  });

  it("knows test files and leaves fixtures and sources alone", () => {
    for (const f of [
      "a.test.ts",
      "x/y.spec.jsx",
      "__tests__/z.js",
      "test_a.py",
      "a_test.py",
      "a_test.go",
      "src/test/kotlin/AKt.kt",
      "ATest.java",
      "a_spec.rb",
      "Foo.Tests/Bar.cs",
      "tests/cli.rs",
      "conftest.py",
    ])
      expect(isTestFile(f), f).toBe(true);
    // A name no runner finds is not a test: `git mv x.test.js x.test.js.disabled` deletes the test.
    for (const f of [
      "src/math.js",
      "test/fixtures/data.json",
      "src/latest.ts",
      "contest.py",
      "docs/test.md",
      "testdata/x.txt",
      "math.test.js.disabled",
      "test/a.spec.ts.bak",
    ])
      expect(isTestFile(f), f).toBe(false);
  });

  it("a flag on a file the analysis named is allowed; the others refuse", () => {
    const flags: Weakening[] = [
      { path: "test/math.test.js", kind: "test_deleted", reason: "test file deleted" },
      { path: ".github/workflows/ci.yml", kind: "ci_config", reason: "CI configuration modified" },
    ];
    const { refused, allowed } = splitByCause(flags, ["`./.github/workflows/ci.yml:12`", "src/math.js"]);
    expect(allowed.map((f) => f.path)).toEqual([".github/workflows/ci.yml"]);
    expect(refused.map((f) => f.path)).toEqual(["test/math.test.js"]);
  });
});
