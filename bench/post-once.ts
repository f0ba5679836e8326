/**
 * Posting under faults, as a markdown section for docs/benchmarks.md. `benchPostOnce()` is what
 * bench/run.ts calls; run alone with `node --import tsx bench/post-once.ts [--write]`.
 *
 * N posts through the real GitHub and Azure DevOps backends against the fake servers, with a share
 * of the POSTs failing: timeouts after the server applied the write and before it, and the same
 * for 5xx. Counts the posts the forge shows twice (the target is none), beside a client that
 * retries failed POSTs blindly, as otto's clients did before src/pr/post-once.ts.
 */
import { runStandalone, writeSection as writeBenchSection } from "./sections.ts";
import { postTrial, type PostTrialResult } from "../test/support/post-trial.ts";
import type { FaultKind } from "../test/support/fake-http.ts";

const POSTS = Number(process.env.OTTO_BENCH_POSTS ?? 100);
const RATE = 0.3;
const TIMEOUTS: FaultKind[] = ["timeout_after", "timeout"];
const ALL: FaultKind[] = ["timeout_after", "timeout", "500_after", "500"];

const faults = (r: PostTrialResult): string =>
  Object.entries(r.faults)
    .map(([k, v]) => `${v} ${k}`)
    .join(", ");

export async function benchPostOnce(log: (line: string) => void = () => undefined): Promise<string> {
  const rows: string[] = [];
  for (const forge of ["github", "ado"] as const) {
    for (const [label, kinds] of [
      ["timeouts", TIMEOUTS],
      ["timeouts and 5xx", ALL],
    ] as const) {
      for (const blindRetries of [false, true]) {
        const r = await postTrial({ forge, posts: POSTS, rate: RATE, kinds: [...kinds], seed: 11, blindRetries });
        const who = blindRetries ? "blind retries (before)" : "otto (post once)";
        log(`${forge} ${label} ${who}: ${r.duplicates} duplicates, ${r.lost} lost, ${r.failed} failed, ${r.writes} POSTs, ${r.ms} ms`);
        rows.push(
          `| ${forge === "github" ? "GitHub" : "Azure DevOps"} | ${label} (${faults(r)}) | ${who} | ${r.writes} | **${r.duplicates}** | ${r.lost} | ${r.failed} | ${r.ms} ms |`,
        );
      }
    }
  }
  return [
    "## Posting under faults (no post twice)",
    "",
    `${POSTS} comments posted one after another through the real backends against the fake GitHub and Azure DevOps servers (127.0.0.1), ${RATE * 100} % of the POSTs failing (at most two in a row): \`timeout_after\` and \`500_after\` apply the write and then hang or answer 500; \`timeout\` and \`500\` fail before it. Request timeout 100 ms. "otto" is the posting path (src/pr/post-once.ts: no blind retry, look for the post's marker, write again at most once); "blind retries" is a client that retries a failed POST up to 3 times, as before.`,
    "",
    "| forge | faults injected | client | POSTs sent | duplicates | lost | failed (retried next poll) | time |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

export function writeSection(section: string): void {
  writeBenchSection("## Posting under faults", section);
}

runStandalone(import.meta.url, benchPostOnce, writeSection);
