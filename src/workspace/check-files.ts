import path from "node:path";
import { MANIFESTS } from "./manifest-changes.ts";
import { CHECK_CONFIG, CI_PATH, isTestFile } from "./weakening-patterns.ts";

/*
 * The files that decide what a project's checks check: what a test runner would find, how the
 * package manager runs scripts, the runners' configuration, CI, the manifests, and every file the
 * package.json scripts name. A fix that changes one of them outside the files the analysis named
 * is run once more against the PR's own versions (restored-checks.ts). Wide on purpose: a file
 * named here that is harmless costs one more check run, a file missed here is a way around it.
 */

/** Files under a folder test runners search, whatever their extension (fixtures and snapshots decide results too). */
const TEST_FOLDER = /(?:^|\/)(?:__tests__|__snapshots__|tests?|specs?|e2e|testing|testdata|fixtures)\//i;

/** Test files by name beyond isTestFile's: a root test.js, Python's tests.py, `*-test.js`, `test-*.js` (node --test finds those). */
const TEST_NAMES = [
  /^test\.[cm]?[jt]sx?$/,
  /(?:^|\/)tests?\.py$/,
  /(?:^|\/)test[-_][^/]*\.[cm]?[jt]sx?$/,
  /[-_]test\.[cm]?[jt]sx?$/,
  /\.snap$/,
];

/** How package managers and test runners are told to behave, beyond CHECK_CONFIG: rc files run scripts through another shell. */
const RUNNER_CONFIG = [
  /(?:^|\/)\.npmrc$/,
  /(?:^|\/)\.yarnrc(?:\.ya?ml)?$/,
  /(?:^|\/)\.yarn\/(?:plugins|releases|patches)\//,
  /(?:^|\/)\.pnp\.(?:c?js|loader\.mjs)$/,
  /(?:^|\/)\.pnpmfile\.c?js$/,
  /(?:^|\/)pnpm-workspace\.ya?ml$/,
  /(?:^|\/)bunfig\.toml$/,
  /(?:^|\/)deno\.jsonc?$/,
  /(?:^|\/)\.babelrc[^/]*$/,
  /(?:^|\/)babel\.config\.[^/]+$/,
  /(?:^|\/)\.swcrc$/,
  /(?:^|\/)\.env\.test[^/]*$/,
  /(?:^|\/)setup\.py$/,
  /(?:^|\/)requirements[^/]*\.txt$/,
  /(?:^|\/)(?:go\.mod|go\.work)$/,
  /(?:^|\/)(?:build\.gradle(?:\.kts)?|settings\.gradle(?:\.kts)?|pom\.xml)$/,
  /(?:^|\/)(?:justfile|Justfile|Taskfile\.ya?ml|Rakefile|Gemfile)$/,
  /(?:^|\/)(?:azure-pipelines[^/]*|\.gitlab-ci)\.ya?ml$/,
];

/** Pure: whether `file` is a test or a file that configures how the checks run (not a script a package.json names: see scriptPaths). */
export function isCheckFile(file: string): boolean {
  return isTestFile(file) || TEST_FOLDER.test(file) || TEST_NAMES.some((re) => re.test(file)) || isCheckConfiguration(file);
}

/** Pure: configuration rather than a test: adding one changes how the existing tests run. */
export function isCheckConfiguration(file: string): boolean {
  return (
    MANIFESTS.test(file) ||
    CHECK_CONFIG.some((re) => re.test(file)) ||
    CI_PATH.some((re) => re.test(file)) ||
    RUNNER_CONFIG.some((re) => re.test(file)) ||
    /(?:^|\/)conftest\.py$/.test(file)
  );
}

const EXTENSIONS = ["", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".sh", ".py"];

/** Scripts that check (test, pretest, lint, check:types, ci, coverage, …): the files they name are check files; `start` or `build` are not. */
const CHECK_SCRIPT = /test|check|lint|verify|spec|coverage|e2e|validate|^ci$|^ci:/i;

/**
 * Pure: the files (relative to the top of the tree) a package.json at `dir` names in its checking
 * scripts (CHECK_SCRIPT): `node test.js`, `./scripts/check.sh`, `mocha --require=./setup.js`, each
 * also with the usual extensions (`node test` runs test.js). Files only: a folder a script names
 * (`eslint src`) would make every fix of the code a change to the checks. Not JSON: none.
 */
export function scriptPaths(text: string | undefined, dir: string): string[] {
  if (text === undefined) return [];
  let scripts: unknown;
  try {
    scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
  } catch {
    return [];
  }
  if (!scripts || typeof scripts !== "object") return [];
  const out = new Set<string>();
  for (const [name, value] of Object.entries(scripts as Record<string, unknown>)) {
    if (typeof value !== "string" || !CHECK_SCRIPT.test(name)) continue;
    for (const raw of value.split(/[\s;&|()<>=,]+/)) {
      const token = raw.replace(/^["'`]+|["'`]+$/g, "");
      if (!token || token.startsWith("-") || token.startsWith("$") || /^[a-z][\w+.-]*:/i.test(token)) continue;
      const joined = path.posix.normalize(path.posix.join(dir, token.replace(/\\/g, "/")));
      if (joined.startsWith("..") || joined === ".") continue;
      if (!joined.endsWith("/")) for (const ext of EXTENSIONS) out.add(`${joined}${ext}`);
    }
  }
  return [...out];
}
