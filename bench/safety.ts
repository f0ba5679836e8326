/**
 * Safe to leave running, in figures, as a markdown section for docs/benchmarks.md. `benchSafety()`
 * is what bench/run.ts calls; run alone with `node --import tsx bench/safety.ts [--write]`.
 *
 * The figures come from the tests that guard each rule (they record what they planted and what got
 * through when OTTO_FIGURES_FILE is set: test/support/figures.ts), run here through vitest, and from
 * posting under injected faults (test/support/post-trial.ts). docs/security.md says what each rule is.
 */
import { execa } from "execa";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runStandalone, writeSection as writeBenchSection } from "./sections.ts";
import { readFigures, REPO_ROOT } from "../test/support/index.ts";
import { postTrial } from "../test/support/post-trial.ts";

/** The tests that measure a figure (unit and e2e through real OpenCode). */
const FILES = [
  "test/unit/safety/secrets-corpus.test.ts",
  "test/unit/guard/push-env.test.ts",
  "test/e2e/pr-pushguard.test.ts",
  "test/e2e/pr-comments-untrusted.test.ts",
  "test/e2e/pr-comments-permission.test.ts",
  "test/e2e/pr-serverguard.test.ts",
  "test/e2e/pr-fix-userwork.test.ts",
  "test/e2e/pr-fix-ignored.test.ts",
  "test/e2e/pr-fix-weakened.test.ts",
];

const POSTS = 100;
const RATE = 0.3;

export async function benchSafety(log: (line: string) => void = () => undefined): Promise<string> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "otto-figures-")), "figures.jsonl");
  log(`safety: running ${FILES.length} test files for their figures`);
  const run = await execa("npx", ["vitest", "run", ...FILES], { cwd: REPO_ROOT, env: { OTTO_FIGURES_FILE: file }, reject: false, all: true });
  if (run.exitCode !== 0) throw new Error(`the safety tests failed, so their figures mean nothing:\n${String(run.all).slice(-4000)}`);
  const figures = readFigures(file).sort((a, b) => a.name.localeCompare(b.name));
  const rows = figures.map((f) => `| ${f.name} | ${f.tried} | **${f.through}** | 0 |`);
  for (const forge of ["github", "ado"] as const) {
    const r = await postTrial({ forge, posts: POSTS, rate: RATE, kinds: ["timeout_after", "timeout", "500_after", "500"], seed: 11, blindRetries: false });
    log(`safety: ${forge} posting: ${r.duplicates} duplicates in ${POSTS} posts`);
    rows.push(`| posts on ${forge === "github" ? "GitHub" : "Azure DevOps"} under ${RATE * 100} % injected faults (timeouts and 5xx, before and after the write): duplicates | ${POSTS} | **${r.duplicates}** | 0 |`);
  }
  return [
    "## Safety: what got through",
    "",
    `Each row is measured by the test that guards the rule (${FILES.map((f) => `\`${path.basename(f)}\``).join(", ")}), run by the bench, and by posting through the real backends against the fake forges with faults injected ("Posting under faults" below has the details). What each rule is and how it is enforced: [security.md](security.md).`,
    "",
    "| measure | tried | got through | target |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

export function writeSection(section: string): void {
  writeBenchSection("## Safety: what got through", section);
}

runStandalone(import.meta.url, benchSafety, writeSection);
