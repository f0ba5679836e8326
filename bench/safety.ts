/**
 * Safe to leave running, in figures, as a markdown section for docs/benchmarks.md. `benchSafety()`
 * is what bench/run.ts calls; run alone with `node --import tsx bench/safety.ts [--write] [path …]`
 * (paths: only those of the files below, to measure a few; --write then is refused).
 *
 * The figures come from the tests that guard each rule: each records what it tried and what got
 * through when OTTO_FIGURES_FILE is set (test/support/figures.ts), before its assertions, so a test
 * that fails still leaves its figure. Each file runs on its own here and its figures are read
 * whether it passed or not: a regression shows as a number that got through, beside the file's
 * verdict, instead of a crashed bench. The posting figures come from posting under injected faults
 * (test/support/post-trial.ts). docs/security.md says what each rule is.
 */
import { execa, execaSync } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runStandalone, writeSection as writeBenchSection } from "./sections.ts";
import { readFigures, REPO_ROOT, type Figure } from "../test/support/index.ts";
import { postTrial } from "../test/support/post-trial.ts";

/**
 * The test files that measure a figure (unit, and e2e through real OpenCode). The one list: add new
 * ones here (test/unit/safety/bench-safety.test.ts fails while a file that calls recordFigure is missing).
 */
export const SAFETY_TEST_FILES: readonly string[] = [
  "test/unit/safety/secrets-corpus.test.ts",
  "test/unit/sandbox/push-env.test.ts",
  "test/e2e/guard/pr-pushguard.test.ts",
  "test/e2e/guard/pr-forgeguard.test.ts",
  "test/e2e/pr/pr-comments-untrusted.test.ts",
  "test/e2e/pr/pr-comments-permission.test.ts",
  "test/e2e/guard/pr-serverguard.test.ts",
  "test/e2e/pr/pr-fix-userwork.test.ts",
  "test/e2e/pr/pr-fix-ignored.test.ts",
  "test/e2e/pr/pr-fix-weakened.test.ts",
  "test/e2e/pr/pr-comments-flood.test.ts",
  "test/e2e/pr-review/pr-review-untrusted-config.test.ts",
  "test/unit/sandbox/sandbox.test.ts",
  "test/e2e/sandbox/sandbox.test.ts",
  "test/e2e/ci/ci-github.test.ts",
  "test/e2e/ci/ci-azure.test.ts",
  "test/e2e/hostile/git-control.test.ts",
  "test/e2e/hostile/home-and-env.test.ts",
  "test/e2e/hostile/push.test.ts",
];

const POSTS = 100;
const RATE = 0.3;

export interface FileResult {
  file: string;
  passed: boolean;
  /** The figures it recorded, those of one name added up (a file's tests may each record a part). */
  figures: Figure[];
  /** The end of vitest's output when the file failed. */
  failure?: string;
}

/** Adds up the figures of one name, in the order first seen. */
export function sumFigures(figures: readonly Figure[]): Figure[] {
  const byName = new Map<string, Figure>();
  for (const f of figures) {
    const seen = byName.get(f.name);
    byName.set(f.name, seen ? { name: f.name, tried: seen.tried + f.tried, through: seen.through + f.through } : { ...f });
  }
  return [...byName.values()];
}

/** Runs one test file with OTTO_FIGURES_FILE set and reads what it recorded, failed or not. */
async function measure(file: string, dir: string): Promise<FileResult> {
  // Named by the whole path: two files of one name (a unit and an e2e test) keep their figures apart.
  const out = path.join(dir, `${file.replace(/[\\/]/g, "__")}.jsonl`);
  const run = await execa("npx", ["vitest", "run", file, "--maxWorkers=1"], {
    cwd: REPO_ROOT,
    env: { OTTO_FIGURES_FILE: out },
    reject: false,
    all: true,
  });
  const passed = run.exitCode === 0;
  return { file, passed, figures: sumFigures(readFigures(out)), ...(passed ? {} : { failure: String(run.all).slice(-3000) }) };
}

/**
 * Whether bubblewrap is on this machine's PATH (`command -v bwrap`). Where it is, a file that measured
 * nothing is a failure: its tests skip only without a sandbox, so a skip there hides a broken probe.
 */
export function bubblewrapInstalled(): boolean {
  return execaSync("sh", ["-c", "command -v bwrap"], { reject: false }).exitCode === 0;
}

/** A file that passed without recording a figure: its measuring tests were skipped. */
const skipped = (r: FileResult): boolean => r.passed && r.figures.length === 0;

/** The table's rows: one per figure, and one per file that recorded none. */
export function safetyRows(results: readonly FileResult[], options: { bwrap: boolean }): string[] {
  const rows: string[] = [];
  for (const r of results) {
    const verdict = skipped(r) ? (options.bwrap ? "**skipped**" : "skipped") : r.passed ? "passed" : "**failed**";
    const test = `\`${path.basename(r.file)}\` (${verdict})`;
    if (skipped(r))
      rows.push(`| not measured: the file's measuring tests were skipped (no sandbox on this machine?) | – | – | 0 | ${test} |`);
    else if (r.figures.length === 0) rows.push(`| no figure recorded: the test failed before it measured | – | – | 0 | ${test} |`);
    for (const f of r.figures) rows.push(`| ${f.name} | ${f.tried} | **${f.through}** | 0 | ${test} |`);
  }
  return rows;
}

export interface SafetyVerdict {
  /** Figures with something through. */
  through: Figure[];
  /** Files that failed, and (where bubblewrap is installed) files that measured nothing. */
  failed: string[];
  /** Files that measured nothing. */
  notMeasured: string[];
  /** The line under the table. */
  summary: string;
}

/**
 * What the run says: nothing got through only when every file measured and nothing measured got
 * through; "every test passed" only when no file failed or, with bubblewrap installed, skipped.
 */
export function safetyVerdict(results: readonly FileResult[], options: { bwrap: boolean }): SafetyVerdict {
  const name = (r: FileResult) => `\`${path.basename(r.file)}\``;
  const through = results.flatMap((r) => r.figures).filter((f) => f.through > 0);
  const notMeasured = results.filter(skipped).map(name);
  const failed = results.filter((r) => !r.passed || (options.bwrap && skipped(r))).map(name);
  const parts = [
    through.length > 0
      ? `**Got through: ${through.map((f) => `${f.through} of ${f.tried} (${f.name})`).join("; ")}.**`
      : notMeasured.length > 0
        ? "Nothing measured got through."
        : "Nothing got through.",
    ...(notMeasured.length > 0
      ? [
          options.bwrap
            ? `**Not measured although bubblewrap is installed: ${notMeasured.join(", ")}.**`
            : `Not measured (no sandbox on this machine): ${notMeasured.join(", ")}.`,
        ]
      : []),
    failed.length === 0 ? "Every test passed." : `**Failed: ${failed.join(", ")}.**`,
  ];
  return { through, failed, notMeasured, summary: parts.join(" ") };
}

export async function benchSafety(
  log: (line: string) => void = () => undefined,
  files: readonly string[] = SAFETY_TEST_FILES,
): Promise<string> {
  return (await measureSafety(log, files)).section;
}

/** The section and its verdict: what ran, what got through, what was not measured. */
export async function measureSafety(
  log: (line: string) => void,
  files: readonly string[],
): Promise<{ section: string; verdict: SafetyVerdict }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-figures-"));
  const results: FileResult[] = [];
  try {
    for (const file of files) {
      log(`safety: ${file}`);
      const result = await measure(file, dir);
      results.push(result);
      for (const f of result.figures)
        log(`safety:   ${f.name}: tried ${f.tried}, got through ${f.through}${f.through > 0 ? "  <- target 0" : ""}`);
      if (!result.passed)
        log(`safety:   the test failed${result.figures.length === 0 ? " before it measured" : ""}:\n${result.failure ?? ""}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const bwrap = bubblewrapInstalled();
  const rows = safetyRows(results, { bwrap });
  for (const forge of ["github", "ado"] as const) {
    const r = await postTrial({
      forge,
      posts: POSTS,
      rate: RATE,
      kinds: ["timeout_after", "timeout", "500_after", "500"],
      seed: 11,
      blindRetries: false,
    });
    log(`safety: ${forge} posting: ${r.duplicates} duplicates in ${POSTS} posts`);
    rows.push(
      `| posts on ${forge === "github" ? "GitHub" : "Azure DevOps"} under ${RATE * 100} % injected faults (timeouts and 5xx, before and after the write): duplicates | ${POSTS} | **${r.duplicates}** | 0 | \`post-trial.ts\` |`,
    );
  }
  const verdict = safetyVerdict(results, { bwrap });
  for (const file of verdict.notMeasured)
    log(`safety: ${file} measured nothing (its tests were skipped)${bwrap ? "  <- bubblewrap is installed: a failure" : ""}`);
  const summary = verdict.summary;
  const section = [
    "## Safety: what got through",
    "",
    `Each row is measured by the test that guards the rule, run by the bench one file at a time (the list is \`SAFETY_TEST_FILES\` in bench/safety.ts); a test records its figure before its assertions, so a failing test still reports what got through. The posting rows come from posting through the real backends against the fake forges with faults injected ("Posting under faults" below has the details). What each rule is and how it is enforced: [security.md](security.md).`,
    "",
    "| measure | tried | got through | target | test |",
    "|---|---|---|---|---|",
    ...rows,
    "",
    summary,
    "",
  ].join("\n");
  return { section, verdict };
}

export function writeSection(section: string): void {
  writeBenchSection("## Safety: what got through", section);
}

/** Paths given on the command line: a subset of SAFETY_TEST_FILES, measured and printed, never written. */
function subset(): readonly string[] {
  const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const unknown = only.filter((f) => !SAFETY_TEST_FILES.includes(f));
  if (unknown.length > 0) throw new Error(`not in SAFETY_TEST_FILES (bench/safety.ts): ${unknown.join(", ")}`);
  return only;
}

runStandalone(
  import.meta.url,
  async (log) => {
    const only = subset();
    const { section, verdict } = await measureSafety(log, only.length > 0 ? only : SAFETY_TEST_FILES);
    // Run alone, the process fails with the verdict: a figure through, a failed file, a skip where bubblewrap is.
    if (verdict.through.length > 0 || verdict.failed.length > 0) process.exitCode = 1;
    return section;
  },
  (section) => {
    if (subset().length > 0) throw new Error("--write with a subset of the files would drop the other rows; run without paths to write");
    writeSection(section);
  },
);
