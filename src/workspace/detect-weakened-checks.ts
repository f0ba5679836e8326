import { manifestChange, MANIFESTS } from "./manifest-changes.ts";
import { parseDiffLines, type FileLines } from "./parse-diff-lines.ts";
import {
  ASSERTION,
  CHECK_CONFIG,
  CI_PATH,
  DEPENDENCY_MANIFEST,
  DOC_EXT,
  FLAKE_HIDERS,
  isTestFile,
  RETRY_PLUGIN,
  SKIP_MARKERS,
  SUPPRESSIONS,
  TEST_DECLARATION,
} from "./weakening-patterns.ts";

export { isTestFile } from "./weakening-patterns.ts";
export { parseDiffLines, type FileLines } from "./parse-diff-lines.ts";
export { MANIFESTS } from "./manifest-changes.ts";

/*
 * A session asked to turn CI green can do it by fixing the code or by weakening what checks it:
 * deleting or skipping tests, removing assertions, hiding a flaky test behind a sleep, a retry or a
 * longer timeout, editing the pipeline, rewriting the test script,
 * loosening lint or test configuration, or hiding a diff from the reviewer with `-diff` attributes.
 * This module names each such change in a change set (pure: the paths git reports and the diff
 * read with `--text`); change-set.ts reads one, the patterns are in weakening-patterns.ts, the
 * manifests' sections in manifest-changes.ts. What a flow does with the list (refuse, or hand it
 * to the reviewing model when the failure analysis named the file) is screen-changes.ts's.
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
  | "git_attributes"
  | "flake_hidden";

export interface Weakening {
  path: string;
  kind: WeakeningKind;
  /** One line: what the change does, for the PR document, the next session and the reviewer. */
  reason: string;
}

const count = (lines: readonly string[], re: RegExp): number => lines.filter((l) => re.test(l)).length;
const isDoc = (file: string): boolean => DOC_EXT.test(file);

/** Markers added more often than removed (a moved skip is not a new one). */
function addedMarkers(lines: FileLines, markers: readonly (readonly [string, RegExp, boolean?])[], testCode: boolean): string[] {
  return markers
    .filter(([, re, anywhere = true]) => (testCode || anywhere) && count(lines.added, re) > count(lines.removed, re))
    .map(([name]) => name);
}

/** Pure: every way the change set weakens the project's checks, one entry per file and kind. */
export function detectWeakenedChecks(change: ChangeSet): Weakening[] {
  const found: Weakening[] = [];
  const lines = parseDiffLines(change.diff);
  for (const file of change.files) {
    const p = file.path;
    const add = (kind: WeakeningKind, reason: string, at = p): void => void found.push({ path: at, kind, reason });

    if (/(?:^|\/)\.gitattributes$/.test(p) || (file.from && /(?:^|\/)\.gitattributes$/.test(file.from))) {
      add(
        "git_attributes",
        `.gitattributes ${file.status}: attributes decide how git shows and converts files (\`-diff\` hides a file's diff)`,
      );
    }
    if (file.status === "deleted" && isTestFile(p)) add("test_deleted", "test file deleted");
    // Only a rename has a `from`.
    if (file.from && isTestFile(file.from) && !isTestFile(p))
      add("test_deleted", `test file renamed to ${p}, so the runner no longer finds it`, file.from);
    for (const at of [p, ...(file.from ? [file.from] : [])]) {
      if (CI_PATH.some((re) => re.test(at))) {
        add("ci_config", `CI configuration ${file.status}`, at);
        break;
      }
    }
    if (CHECK_CONFIG.some((re) => re.test(p)) || (file.from && CHECK_CONFIG.some((re) => re.test(file.from!))))
      add("check_config", `lint, type-check or test configuration ${file.status}`);
    if (MANIFESTS.test(p)) {
      const text = change.contents[p];
      const before = file.from ? change.contents[file.from]?.before : text?.before;
      const manifest = manifestChange(p, file.status === "added" ? undefined : before, file.status === "deleted" ? undefined : text?.after);
      if (manifest) found.push(manifest);
    }

    const diff = lines.get(p) ?? (file.from ? lines.get(file.from) : undefined);
    // Before the documents are skipped: requirements.txt is a manifest.
    if (diff && DEPENDENCY_MANIFEST.test(p) && count(diff.added, RETRY_PLUGIN) > count(diff.removed, RETRY_PLUGIN))
      add("flake_hidden", "a test-retry plugin added: it hides a flaky test instead of fixing it");
    if (!diff || isDoc(p)) continue;
    // Rust keeps unit tests in the source file; other languages' test code is in test files.
    const testCode = isTestFile(p) || /\.rs$/.test(p);
    const skips = addedMarkers(diff, SKIP_MARKERS, testCode);
    if (skips.length > 0) add("skip_added", `skip or only markers added (${skips.join(", ")})`);
    const suppressions = addedMarkers(diff, SUPPRESSIONS, testCode);
    if (suppressions.length > 0) add("suppression_added", `lint or type-check suppressions added (${suppressions.join(", ")})`);
    // In test code (and check configuration): a sleep, a retry or a longer timeout makes a flaky failure rarer, not gone.
    if (testCode || CHECK_CONFIG.some((re) => re.test(p))) {
      const hiders = addedMarkers(diff, FLAKE_HIDERS, true);
      if (hiders.length > 0) add("flake_hidden", `${hiders.join(", ")} added to a test: it hides a flaky failure instead of fixing it`);
    }
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
  // A match holds no `:` and keeps its word characters through normalisePath: never empty, never a
  // URL's scheme. A URL gives its host and path (`https://x.io/y` is `x.io/y`), no changed file.
  const found = text.match(/[\w.@-]*[\w@-](?:\/[\w.@-]+)+|[\w@-][\w.@-]*\.[A-Za-z]\w*/g) ?? [];
  return [...new Set(found.map(normalisePath))];
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
