/*
 * What the detector of weakened checks (detect-weakened-checks.ts) recognises, by language and
 * tool: test files, pipeline and check configuration, skip markers, suppressions, assertions and
 * test declarations. Patterns only: what they miss is left to the reviewing model.
 */

export const CODE_EXT = /\.(?:[cm]?[jt]sx?|py|go|rs|java|kts?|scala|groovy|rb|cs|fs|vb|php|swift|exs?|dart|clj|c|cc|cpp|h|hpp)$/i;
export const DOC_EXT = /\.(?:md|mdx|markdown|rst|txt|adoc|html?)$/i;

/** Test files by name, across JS/TS, Python, Go, Rust, Java/Kotlin, Ruby, C#, PHP. */
export const TEST_NAME = [
  // foo.test.ts, foo.spec.js, foo.e2e.ts; not foo.test.js.disabled (no runner finds it: a rename to it deletes the test)
  /\.(?:test|spec|e2e)\.(?:[cm]?[jt]sx?|py|go|rs|java|kts?|scala|groovy|rb|cs|fs|vb|php|swift|exs?|dart|clj|c|cc|cpp)$/i,
  /(?:^|\/)test_[^/]*\.py$/,
  /_tests?\.py$/,
  /(?:^|\/)conftest\.py$/,
  /_test\.go$/,
  /(?:Tests?|IT|Spec)\.(?:java|kts?|scala|groovy|cs|php|swift)$/,
  /_(?:spec|test)\.(?:rb|exs?)$/,
];
/** Directories that hold tests: a code file under one is a test file. */
export const TEST_DIR =
  /(?:^|\/)(?:__tests__|tests?|specs?|e2e|src\/test|src\/androidTest|src\/integrationTest|testing)\/|(?:^|\/)[^/]+\.Tests?\//i;

export function isTestFile(file: string): boolean {
  if (TEST_NAME.some((re) => re.test(file))) return true;
  return TEST_DIR.test(file) && CODE_EXT.test(file);
}

/** Where pipelines are defined: a fix has no reason to change them unless the failure is there. */
export const CI_PATH = [
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
export const CHECK_CONFIG = [
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
  /\.runsettings$/,
  // otto's own repo config: its pr.verify and spec.verify are the checks the next run runs.
  /(?:^|\/)\.otto\/otto\.jsonc?$/,
];

/**
 * Markers that skip, narrow or mark-as-expected-to-fail a test, added on a line: [name, pattern,
 * whether it counts outside test files too (unambiguous spellings do; `t.Skip(` or a bare
 * `pending` could be anything in application code)].
 */
export const SKIP_MARKERS: readonly (readonly [string, RegExp, boolean])[] = [
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
export const SUPPRESSIONS: readonly [string, RegExp][] = [
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
export const ASSERTION =
  /\bexpect\s*[(.]|\bassert\w*\s*[(!.]|\bassert\s+\S|\.should\b|\bshould(?:_not)?\s*[(.=]|\b(?:require|assert)\.\w+\s*\(|\bt\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(|\bAssert\.\w+|\bassert_\w+!?\s*\(|\bmust_\w+\b|\bpytest\.raises\s*\(|\bverify\s*\(/;

/** Test declarations: removing them removes tests without deleting the file. */
export const TEST_DECLARATION =
  /\b[xf]?(?:it|test|specify|scenario)(?:\.\w+)?\s*\(\s*["'`]|^\s*(?:async\s+)?def\s+test_?\w*\s*\(|^\s*func\s+(?:Test|Benchmark|Fuzz)\w*\s*\(|#\[\s*(?:tokio::)?test\b|@(?:Test|ParameterizedTest|TestFactory)\b|\[\s*(?:Fact|Theory|Test|TestMethod|TestCase)\b|^\s*it\s+["']/;

/**
 * What hides a flaky test instead of fixing it, added to test code: [name, pattern]. A sleep, a
 * retry, a longer timeout or a flaky marker makes an intermittent failure rarer, not gone.
 */
export const FLAKE_HIDERS: readonly (readonly [string, RegExp])[] = [
  [
    "sleep",
    /\bsetTimeout\s*\(|(?<![\w.])sleep\s*\(|\btime\.sleep\s*\(|\bThread\.sleep\s*\(|\bTask\.Delay\s*\(|\bthread::sleep\b|\btime::sleep\b|\bwaitForTimeout\s*\(|\bcy\.wait\s*\(\s*\d|\btime\.Sleep\s*\(/,
  ],
  [
    "retry",
    /\bretryTimes\s*\(|\bthis\.retries\s*\(|\bretries\s*[:=]\s*\d|\bretry\s*[:=]\s*\d|@(?:pytest\.mark\.)?flaky\b|@RetryingTest\b|@Retry\b|@RepeatedIfExceptionsTest\b|\[\s*Retry\s*\(|--reruns\b|\breruns\s*=|:retry\s*=>|\bretry\s*\(\s*\d/,
  ],
  [
    "longer timeout",
    /\bjest\.setTimeout\s*\(|\bthis\.timeout\s*\(|\btest\.setTimeout\s*\(|\b(?:testTimeout|hookTimeout|timeout)\s*[:=]\s*\d|@pytest\.mark\.timeout\b|\[\s*Timeout\s*\(|\bvi\.setConfig\s*\(/,
  ],
];

/** Test-retry plugins, added as a dependency (package.json, requirements, pyproject, Gemfile, …). */
export const RETRY_PLUGIN =
  /\b(?:jest-retries|jest-circus-retry|mocha-retry|cypress-plugin-retries|protractor-flake|pytest-rerunfailures|pytest-retry|flaky|rspec-retry|minitest-retry|junit-retry|testng-retry)\b/;

/** Files that declare a project's dependencies. */
export const DEPENDENCY_MANIFEST =
  /(?:^|\/)(?:package\.json|requirements[^/]*\.txt|pyproject\.toml|Pipfile|setup\.cfg|setup\.py|Gemfile|go\.mod|Cargo\.toml|pom\.xml|build\.gradle(?:\.kts)?|[^/]+\.csproj)$/;
