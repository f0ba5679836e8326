/*
 * A session asked to turn CI green can do it by fixing the code or by weakening what checks it:
 * deleting or skipping tests, removing assertions, editing the pipeline, rewriting the test script,
 * loosening lint or test configuration, or hiding a diff from the reviewer with `-diff` attributes.
 * This module names each such change in a change set (pure: the paths git reports and the diff
 * read with `--text`); src/workspace/change-set.ts reads one. What a flow does with the list (refuse,
 * or hand it to the reviewing model when the failure analysis named the file) is the flow's.
 */

export type ChangeStatus = "added" | "modified" | "deleted" | "renamed";

export interface ChangedFile {
  /** Path relative to the top of the tree (the new path of a rename). */
  path: string;
  status: ChangeStatus;
  /** The old path of a rename. */
  from?: string | undefined;
}

export interface ChangeSet {
  files: ChangedFile[];
  /** The unified diff of every change, read with `--text --no-ext-diff --no-textconv`. */
  diff: string;
  /** Before and after text of the manifests whose test sections matter (package.json, pyproject.toml, …); absent side undefined. */
  contents: Record<string, { before?: string | undefined; after?: string | undefined }>;
}

export type WeakeningKind =
  | "test_deleted"
  | "tests_removed"
  | "assertions_removed"
  | "skip_added"
  | "suppression_added"
  | "ci_config"
  | "test_script"
  | "check_config"
  | "git_attributes";

export interface Weakening {
  path: string;
  kind: WeakeningKind;
  /** One line: what the change does, for the PR document, the next session and the reviewer. */
  reason: string;
}

const CODE_EXT = /\.(?:[cm]?[jt]sx?|py|go|rs|java|kts?|scala|groovy|rb|cs|fs|vb|php|swift|exs?|dart|clj|c|cc|cpp|h|hpp)$/i;
const DOC_EXT = /\.(?:md|mdx|markdown|rst|txt|adoc|html?)$/i;

/** Test files by name, across JS/TS, Python, Go, Rust, Java/Kotlin, Ruby, C#, PHP. */
const TEST_NAME = [
  /\.(?:test|spec|e2e)\.[^/]+$/i, // foo.test.ts, foo.spec.js, foo.e2e.ts
  /(?:^|\/)test_[^/]*\.py$/,
  /_tests?\.py$/,
  /(?:^|\/)conftest\.py$/,
  /_test\.go$/,
  /(?:Tests?|IT|Spec)\.(?:java|kts?|scala|groovy|cs|php|swift)$/,
  /_(?:spec|test)\.(?:rb|exs?)$/,
];
/** Directories that hold tests: a code file under one is a test file. */
const TEST_DIR = /(?:^|\/)(?:__tests__|tests?|specs?|e2e|src\/test|src\/androidTest|src\/integrationTest|testing)\/|(?:^|\/)[^/]+\.Tests?\//i;

export function isTestFile(file: string): boolean {
  if (TEST_NAME.some((re) => re.test(file))) return true;
  return TEST_DIR.test(file) && CODE_EXT.test(file);
}

/** Where pipelines are defined: a fix has no reason to change them unless the failure is there. */
const CI_PATH = [
  /^\.github\/(?:workflows|actions)\//,
  /(?:^|\/)azure-pipelines[^/]*\.ya?ml$/i,
  /^\.azure-pipelines\//,
  /^\.azuredevops\//,
  /(?:^|\/)\.gitlab-ci\.ya?ml$/,
  /^\.gitlab\/ci\//,
  /^\.circleci\//,
  /(?:^|\/)Jenkinsfile[^/]*$/,
  /^\.buildkite\//,
  /^\.travis\.ya?ml$/,
  /^(?:\.)?appveyor\.ya?ml$/,
  /^\.drone\.ya?ml$/,
  /^bitbucket-pipelines\.ya?ml$/,
  /^\.woodpecker(?:\.ya?ml|\/)/,
];

/** Lint, type-check, test-runner and coverage configuration: loosening it turns checks green. */
const CHECK_CONFIG = [
  /(?:^|\/)\.eslintrc[^/]*$/,
  /(?:^|\/)eslint\.config\.[^/]+$/,
  /(?:^|\/)\.eslintignore$/,
  /(?:^|\/)\.prettierrc[^/]*$/,
  /(?:^|\/)prettier\.config\.[^/]+$/,
  /(?:^|\/)\.prettierignore$/,
  /(?:^|\/)biome\.jsonc?$/,
  /(?:^|\/)tsconfig[^/]*\.json$/,
  /(?:^|\/)jsconfig[^/]*\.json$/,
  /(?:^|\/)(?:jest|vitest|vite|karma|playwright|cypress|ava|wdio|stryker)\.(?:config|conf|workspace)[^/]*$/,
  /(?:^|\/)\.mocharc[^/]*$/,
  /(?:^|\/)\.(?:nycrc|c8rc)[^/]*$/,
  /(?:^|\/)\.stylelintrc[^/]*$/,
  /(?:^|\/)(?:codecov|\.codecov)\.ya?ml$/,
  /(?:^|\/)pytest\.ini$/,
  /(?:^|\/)tox\.ini$/,
  /(?:^|\/)noxfile\.py$/,
  /(?:^|\/)conftest\.py$/,
  /(?:^|\/)\.coveragerc$/,
  /(?:^|\/)\.flake8$/,
  /(?:^|\/)mypy\.ini$/,
  /(?:^|\/)\.pylintrc$|(?:^|\/)pylintrc$/,
  /(?:^|\/)\.?ruff\.toml$/,
  /(?:^|\/)pyrightconfig\.json$/,
  /(?:^|\/)\.golangci\.(?:ya?ml|toml|json)$/,
  /(?:^|\/)\.?clippy\.toml$/,
  /(?:^|\/)\.?rustfmt\.toml$/,
  /(?:^|\/)\.rubocop[^/]*\.ya?ml$/,
  /(?:^|\/)\.rspec$/,
  /(?:^|\/)phpunit\.xml(?:\.dist)?$/,
  /(?:^|\/)phpstan\.neon(?:\.dist)?$/,
  /(?:^|\/)\.editorconfig-checker\.json$/,
  /(?:^|\/)\.pre-commit-config\.ya?ml$/,
  /(?:^|\/)lefthook\.ya?ml$/,
  /(?:^|\/)\.husky\//,
  /(?:^|\/)\.lintstagedrc[^/]*$/,
  /(?:^|\/)Directory\.Build\.(?:props|targets)$/,
  /(?:^|\/)\.runsettings$|\.runsettings$/,
];

/**
 * Markers that skip, narrow or mark-as-expected-to-fail a test, added on a line: [name, pattern,
 * whether it counts outside test files too (unambiguous spellings do; `t.Skip(` or a bare
 * `pending` could be anything in application code)].
 */
const SKIP_MARKERS: readonly (readonly [string, RegExp, boolean])[] = [
  [".skip", /\b(?:it|test|describe|context|suite|specify|bench)(?:\.\w+)*\.skip(?:If)?\b/, true],
  [".only", /\b(?:it|test|describe|context|suite|specify)(?:\.\w+)*\.only\s*\(|(?<![\w.$])(?:fit|fdescribe|ftest)\s*\(/, true],
  [".todo", /\b(?:it|test|describe)(?:\.\w+)*\.todo\s*\(/, true],
  ["xit/xdescribe", /(?<![\w.$])x(?:it|describe|test|context|specify)\s*[( ]/, false],
  ["pytest skip", /@pytest\.mark\.(?:skip|skipif|xfail)\b|\bpytest\.(?:skip|xfail|importorskip)\s*\(/, true],
  ["unittest skip", /@unittest\.(?:skip\w*|expectedFailure)\b|\bself\.skipTest\s*\(|\braise\s+(?:unittest\.)?SkipTest\b/, true],
  ["go t.Skip", /\b\w+\.Skip(?:Now|f)?\s*\(/, false],
  ["rust #[ignore]", /#\[\s*ignore\b/, true],
  ["@Disabled/@Ignore", /@(?:Disabled\w*|Ignore)\b/, true],
  ["C# Skip", /\[\s*(?:Ignore\b|Fact\s*\(\s*Skip\s*=|Theory\s*\(\s*Skip\s*=|Test\s*,\s*Ignore)/, true],
  ["RSpec/minitest skip or pending", /\b(?:skip|pending)\s*:\s*(?:true|["'])|^\s*(?:skip|pending)(?:\s+["']|\s*$|\s*\()/, false],
];

/** Comments that silence a linter, a type checker or coverage on the spot. */
const SUPPRESSIONS: readonly [string, RegExp][] = [
  ["eslint-disable", /eslint-disable/],
  ["@ts-ignore/@ts-expect-error/@ts-nocheck", /@ts-(?:ignore|expect-error|nocheck)\b/],
  ["biome-ignore", /biome-ignore/],
  ["coverage ignore", /(?:istanbul|c8|v8)\s+ignore\b|pragma:\s*no\s*cover/],
  ["# noqa", /#\s*noqa\b/],
  ["# type: ignore", /#\s*type:\s*ignore\b/],
  ["pylint disable", /pylint:\s*disable/],
  ["//nolint", /\/\/\s*nolint\b/],
  ["#[allow(...)]", /#!?\[\s*allow\s*\(/],
  ["@SuppressWarnings", /@SuppressWarnings\b|#pragma\s+warning\s+disable|\[SuppressMessage\b/],
  ["rubocop:disable", /rubocop:\s*disable/],
];

/** Lines that assert something in a test, across the usual frameworks. */
const ASSERTION = /\bexpect\s*[(.]|\bassert\w*\s*[(!.]|\bassert\s+\S|\.should\b|\bshould(?:_not)?\s*[(.=]|\b(?:require|assert)\.\w+\s*\(|\bt\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(|\bAssert\.\w+|\bassert_\w+!?\s*\(|\bmust_\w+\b|\bpytest\.raises\s*\(|\bverify\s*\(/;

/** Test declarations: removing them removes tests without deleting the file. */
const TEST_DECLARATION = /\b[xf]?(?:it|test|specify|scenario)(?:\.\w+)?\s*\(\s*["'`]|^\s*(?:async\s+)?def\s+test_?\w*\s*\(|^\s*func\s+(?:Test|Benchmark|Fuzz)\w*\s*\(|#\[\s*(?:tokio::)?test\b|@(?:Test|ParameterizedTest|TestFactory)\b|\[\s*(?:Fact|Theory|Test|TestMethod|TestCase)\b|^\s*it\s+["']/;

/** The parts of a diff for one file: its added and removed lines, without the `+`/`-`. */
export interface FileLines {
  added: string[];
  removed: string[];
}

/** git's C-style quoting of a path with unusual characters (`"a/x\ty"`). */
function unquote(text: string): string {
  if (!text.startsWith('"')) return text;
  const body = text.slice(1, text.endsWith('"') ? -1 : undefined);
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, "\\": 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const next = body[i + 1] ?? "";
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Pure: a unified diff (`git diff --text`) split per file, keyed by the new path (the old one for a deletion). */
export function parseDiffLines(diff: string): Map<string, FileLines> {
  const files = new Map<string, FileLines>();
  let current: FileLines = { added: [], removed: [] };
  let oldPath: string | undefined;
  let newPath: string | undefined;
  let inHunk = false;
  const flush = (): void => {
    const key = newPath ?? oldPath;
    if (key === undefined) return;
    const known = files.get(key);
    files.set(key, known ? { added: [...known.added, ...current.added], removed: [...known.removed, ...current.removed] } : current);
  };
  const pathOf = (text: string, prefix: string): string | undefined => {
    if (text === "/dev/null") return undefined;
    const p = unquote(text.replace(/\t$/, ""));
    return p.startsWith(prefix) ? p.slice(prefix.length) : p;
  };
  for (const line of diff.split("\n")) {
    if (line.startsWith("diff --git ")) {
      flush();
      current = { added: [], removed: [] };
      oldPath = newPath = undefined;
      inHunk = false;
      continue;
    }
    if (!inHunk) {
      // A rename without content changes has no ---/+++ lines.
      if (line.startsWith("rename from ")) oldPath = unquote(line.slice(12));
      else if (line.startsWith("rename to ")) newPath = unquote(line.slice(10));
      else if (line.startsWith("--- ")) oldPath = pathOf(line.slice(4), "a/");
      else if (line.startsWith("+++ ")) newPath = pathOf(line.slice(4), "b/");
      else if (line.startsWith("@@")) inHunk = true;
      continue;
    }
    if (line.startsWith("+")) current.added.push(line.slice(1));
    else if (line.startsWith("-")) current.removed.push(line.slice(1));
  }
  flush();
  return files;
}

const count = (lines: readonly string[], re: RegExp): number => lines.filter((l) => re.test(l)).length;
const isDoc = (file: string): boolean => DOC_EXT.test(file);

/** Markers added more often than removed (a moved skip is not a new one). */
function addedMarkers(lines: FileLines, markers: readonly (readonly [string, RegExp, boolean?])[], testCode: boolean): string[] {
  return markers.filter(([, re, anywhere = true]) => (testCode || anywhere) && count(lines.added, re) > count(lines.removed, re)).map(([name]) => name);
}

/** `scripts` of a package.json (undefined when the text is not JSON or has none). */
function packageSection(text: string | undefined, key: string): string | undefined {
  if (text === undefined) return undefined;
  try {
    const value = (JSON.parse(text) as Record<string, unknown>)[key];
    return value === undefined ? undefined : JSON.stringify(value);
  } catch {
    return "(not valid JSON)";
  }
}

function changedScripts(before: string | undefined, after: string | undefined): string[] {
  const parse = (text: string | undefined): Record<string, unknown> => {
    try {
      const scripts = text === undefined ? undefined : (JSON.parse(text) as { scripts?: unknown }).scripts;
      return scripts && typeof scripts === "object" ? (scripts as Record<string, unknown>) : {};
    } catch {
      return { "(package.json is not valid JSON)": text };
    }
  };
  const was = parse(before);
  const now = parse(after);
  return [...new Set([...Object.keys(was), ...Object.keys(now)])].filter((k) => JSON.stringify(was[k]) !== JSON.stringify(now[k])).sort();
}

/** Package.json keys that configure a test runner, linter or coverage in place. */
const PACKAGE_CHECK_KEYS = ["jest", "eslintConfig", "prettier", "c8", "nyc", "ava", "mocha", "vitest", "xo", "standard", "stylelint", "lint-staged"];

/** Sections (`[tool.pytest.ini_options]`, `[tool:pytest]`, `[profile.test]`) of an INI or TOML text whose name matches. */
function sections(text: string | undefined, name: RegExp): string {
  if (text === undefined) return "";
  const out: string[] = [];
  let keep = false;
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/.exec(line);
    if (header) keep = name.test(header[1]!);
    if (keep) out.push(line.trimEnd());
  }
  return out.join("\n");
}

const PYPROJECT_SECTIONS = /^tool\.(?:pytest|coverage|tox|nox|ruff|mypy|pylint|flake8|black|isort|pyright|hatch\.envs|poe|pdm\.scripts|rye\.scripts|bandit|pydocstyle)\b/;
const SETUP_CFG_SECTIONS = /^(?:tool:pytest|pytest|flake8|mypy(?:-.*)?|coverage:.*|pycodestyle|pydocstyle|isort|pylint.*|tox:.*)$/;
const CARGO_SECTIONS = /^(?:profile\.test|test|lints(?:\..*)?|workspace\.lints(?:\..*)?|package\.metadata\.(?:nextest|tarpaulin).*)$/;

/** The recipes of a Makefile's test-like targets (`test:`, `check:`, `lint:`, `ci:`, …). */
function makeTargets(text: string | undefined): string {
  if (text === undefined) return "";
  const out: string[] = [];
  let keep = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^[^\s#][^=]*:(?!=)/.test(line)) keep = /^(?:\.PHONY\s*:.*|[\w./%-]*(?:test|check|lint|ci|verify|coverage|vet)[\w./%-]*(?:\s+[\w./%-]+)*\s*::?.*)$/i.test(line);
    else if (!/^\t/.test(line) && line.trim() !== "" && !line.startsWith("#")) keep = false;
    if (keep) out.push(line.trimEnd());
  }
  return out.join("\n");
}

/** What changed in the test-relevant parts of a manifest; undefined when nothing did. */
function manifestChange(file: string, before: string | undefined, after: string | undefined): Weakening | undefined {
  const base = file.split("/").pop() ?? file;
  if (base === "package.json") {
    const scripts = changedScripts(before, after);
    if (scripts.length > 0) return { path: file, kind: "test_script", reason: `package.json scripts changed: ${scripts.join(", ")}` };
    const keys = PACKAGE_CHECK_KEYS.filter((k) => packageSection(before, k) !== packageSection(after, k));
    if (keys.length > 0) return { path: file, kind: "check_config", reason: `package.json test or lint configuration changed: ${keys.join(", ")}` };
    return undefined;
  }
  const compare = (pick: (text: string | undefined) => string, what: string, kind: WeakeningKind = "check_config"): Weakening | undefined =>
    pick(before) !== pick(after) ? { path: file, kind, reason: `${what} changed` } : undefined;
  if (base === "pyproject.toml") return compare((t) => sections(t, PYPROJECT_SECTIONS), "pyproject.toml test, lint or coverage sections ([tool.pytest], [tool.coverage], [tool.ruff], …)");
  if (base === "setup.cfg") return compare((t) => sections(t, SETUP_CFG_SECTIONS), "setup.cfg test or lint sections ([tool:pytest], [flake8], [coverage:*], …)");
  if (base === "Cargo.toml") return compare((t) => sections(t, CARGO_SECTIONS), "Cargo.toml test or lint sections ([profile.test], [[test]], [lints])");
  if (/^(?:GNUmakefile|[Mm]akefile)$/.test(base)) return compare(makeTargets, "Makefile test, check or lint targets", "test_script");
  return undefined;
}

/** Basenames whose before/after text the detector reads (change-set.ts reads exactly these). */
export const MANIFESTS = /(?:^|\/)(?:package\.json|pyproject\.toml|setup\.cfg|Cargo\.toml|GNUmakefile|[Mm]akefile)$/;

/** Pure: every way the change set weakens the project's checks, one entry per file and kind. */
export function detectWeakenedChecks(change: ChangeSet): Weakening[] {
  const found: Weakening[] = [];
  const lines = parseDiffLines(change.diff);
  for (const file of change.files) {
    const p = file.path;
    const add = (kind: WeakeningKind, reason: string, at = p): void => void found.push({ path: at, kind, reason });

    if (/(?:^|\/)\.gitattributes$/.test(p) || (file.from && /(?:^|\/)\.gitattributes$/.test(file.from))) {
      add("git_attributes", `.gitattributes ${file.status}: attributes decide how git shows and converts files (\`-diff\` hides a file's diff)`);
    }
    if (file.status === "deleted" && isTestFile(p)) add("test_deleted", "test file deleted");
    if (file.status === "renamed" && file.from && isTestFile(file.from) && !isTestFile(p)) add("test_deleted", `test file renamed to ${p}, so the runner no longer finds it`, file.from);
    for (const at of [p, ...(file.from ? [file.from] : [])]) {
      if (CI_PATH.some((re) => re.test(at))) {
        add("ci_config", `CI configuration ${file.status}`, at);
        break;
      }
    }
    if (CHECK_CONFIG.some((re) => re.test(p)) || (file.from && CHECK_CONFIG.some((re) => re.test(file.from!)))) add("check_config", `lint, type-check or test configuration ${file.status}`);
    if (MANIFESTS.test(p)) {
      const text = change.contents[p];
      const before = file.status === "renamed" && file.from ? change.contents[file.from]?.before : text?.before;
      const manifest = manifestChange(p, file.status === "added" ? undefined : before, file.status === "deleted" ? undefined : text?.after);
      if (manifest) found.push(manifest);
    }

    const diff = lines.get(p) ?? (file.from ? lines.get(file.from) : undefined);
    if (!diff || isDoc(p)) continue;
    // Rust keeps unit tests in the source file; other languages' test code is in test files.
    const testCode = isTestFile(p) || /\.rs$/.test(p);
    const skips = addedMarkers(diff, SKIP_MARKERS, testCode);
    if (skips.length > 0) add("skip_added", `skip or only markers added (${skips.join(", ")})`);
    const suppressions = addedMarkers(diff, SUPPRESSIONS, testCode);
    if (suppressions.length > 0) add("suppression_added", `lint or type-check suppressions added (${suppressions.join(", ")})`);
    if (file.status !== "deleted" && testCode) {
      const removedTests = count(diff.removed, TEST_DECLARATION) - count(diff.added, TEST_DECLARATION);
      if (removedTests > 0) add("tests_removed", `${removedTests} test case(s) removed`);
      const removed = count(diff.removed, ASSERTION);
      const added = count(diff.added, ASSERTION);
      if (removed > added) add("assertions_removed", `${removed} assertion line(s) removed, ${added} added`);
    }
  }
  return found;
}

/** Pure: a path as an analysis names it (`./src/a.ts:12`, `` `src/a.ts` ``), for comparison with a changed path. */
export function normalisePath(text: string): string {
  return text
    .trim()
    .replace(/^[`'"*]+|[`'"*.,;]+$/g, "")
    .replace(/^\.\//, "")
    .replace(/:\d+(?::\d+)?$/, "")
    .replace(/\\/g, "/");
}

/** Pure: the file paths a person's text names (`test/a.test.ts`, src/x.py:12, .github/workflows/ci.yml), normalised. */
export function mentionedPaths(text: string): string[] {
  const found = text.match(/[\w.@-]*[\w@-](?:\/[\w.@-]+)+|[\w@-][\w.@-]*\.[A-Za-z]\w*/g) ?? [];
  return [...new Set(found.map(normalisePath).filter((p) => p.length > 0 && !/^https?:/.test(p)))];
}

/**
 * Pure: the flags on a file the failure analysis named as the cause are allowed (the reviewing
 * model is shown them); the rest refuse the fix. `.git/info/attributes` is never a cause.
 */
export function splitByCause(flags: readonly Weakening[], causeFiles: readonly string[]): { refused: Weakening[]; allowed: Weakening[] } {
  const causes = new Set(causeFiles.map(normalisePath).filter(Boolean));
  const refused: Weakening[] = [];
  const allowed: Weakening[] = [];
  for (const flag of flags) (causes.has(flag.path) ? allowed : refused).push(flag);
  return { refused, allowed };
}

/** One line per flag, for the PR document, the next session and the review prompt. */
export function describeWeakenings(flags: readonly Weakening[]): string {
  return flags.map((f) => `${f.path}: ${f.reason}`).join("; ");
}
