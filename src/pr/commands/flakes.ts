import { cell } from "../../core/index.ts";
import { formatTokens, formatUsd, type VerdictSaving } from "../../cost/index.ts";
import type { PrContext } from "../context/context.ts";
import { listFlakeLedgers, medianFixCost, rankFlakes, verdictsSince, type FlakeLedger } from "../store/flakes.ts";

/*
 * `/otto-pr flakes [--json]`: the flake ledger of every repository otto fixed PRs in. Flaky failures
 * by frequency with links to the PRs and the failed runs, the failures the default branch had
 * (main is red), and the median fix a flake saved.
 */

const short = (sha: string): string => sha.slice(0, 7);

function repoSection(file: string, ledger: FlakeLedger): string[] {
  const name = ledger.repo ? `${ledger.provider ?? ""} ${ledger.repo}`.trim() : file;
  const lines = [`### ${name}`, ""];
  const ranked = rankFlakes(ledger);
  if (ranked.length === 0) lines.push("No flaky failures recorded.");
  else {
    lines.push("| TIMES | FAILURE | CHECKS | LAST SEEN | EVIDENCE |", "|---|---|---|---|---|");
    for (const { fingerprint, entry } of ranked) {
      const checks = [...new Set(entry.occurrences.map((o) => o.check))].join(", ");
      const last = entry.occurrences.at(-1);
      const evidence = entry.occurrences
        .slice(-5)
        .map((o) => `[#${o.number}](${o.url}) ${short(o.head)} ${o.verdict}${o.run_url ? ` ([run](${o.run_url}))` : ""}`)
        .join("; ")
        .concat(entry.issue ? `; [issue](${entry.issue})` : "");
      const failure = entry.lines[0] ? `\`${entry.lines[0]}\`` : `(no failure line) ${fingerprint}`;
      lines.push(`| ${entry.occurrences.length} | ${cell(failure)} | ${cell(checks)} | ${last?.at ?? ""} | ${cell(evidence)} |`);
    }
  }
  const red = Object.values(ledger.red_main);
  if (red.length > 0) {
    lines.push("", "Failures the default branch had (a PR failing the same way is not fixed while they last):");
    for (const r of red)
      lines.push(`- main is red: ${r.check}, since ${short(r.since)} (first seen ${r.first_seen}, last ${r.last_seen}): \`${r.lines[0] ?? ""}\``);
  }
  const median = medianFixCost(ledger);
  if (median)
    lines.push("", `Each flake or inherited failure costs no model call; a fix here costs ${formatUsd(median.usd)} and ${formatTokens(median.tokens)} tokens (median of ${median.runs}).`);
  return lines;
}

export async function listFlakes(ctx: Pick<PrContext, "store">, options: { json?: boolean } = {}): Promise<string> {
  const { ledgers, broken } = await listFlakeLedgers(ctx.store.dir);
  if (options.json) return JSON.stringify({ repositories: ledgers.map((l) => ({ file: l.file, ...l.ledger, ranked: rankFlakes(l.ledger).map((r) => r.fingerprint) })), broken }, null, 2);
  const lines = ["## Flaky failures (otto's flake ledger)", ""];
  if (ledgers.length === 0) lines.push("Nothing recorded yet: the fix flow records a flake or an inherited failure when it meets one.");
  for (const { file, ledger } of ledgers) lines.push(...repoSection(file, ledger), "");
  for (const b of broken) lines.push(`Unreadable: ${b}`);
  return lines.join("\n").trim();
}

/**
 * /otto-cost's estimate of what flake and inherited verdicts saved since `since` in the given
 * repositories (their forge names, as the ledgers hold them; "all" for every ledger): each verdict
 * priced at its repository's median fix run. Undefined when no ledger names one; a broken ledger is skipped.
 */
export async function verdictSavings(storeDir: string, since: Date, repos: readonly string[] | "all"): Promise<VerdictSaving | undefined> {
  const { ledgers } = await listFlakeLedgers(storeDir);
  const wanted = repos === "all" ? undefined : new Set(repos.map((r) => r.toLowerCase()));
  const saved: VerdictSaving = { verdicts: 0, flaky: 0, inherited: 0, usd: 0, tokens: 0, fixes: 0, unpriced: 0 };
  for (const { ledger } of ledgers) {
    if (wanted && !(ledger.repo && wanted.has(ledger.repo.toLowerCase()))) continue;
    const v = verdictsSince(ledger, since);
    const count = v.flaky + v.inherited;
    if (count === 0) continue;
    saved.verdicts += count;
    saved.flaky += v.flaky;
    saved.inherited += v.inherited;
    if (!v.median) saved.unpriced += count;
    else {
      saved.usd += count * v.median.usd;
      saved.tokens += count * v.median.tokens;
      saved.fixes += v.median.runs;
    }
  }
  return saved.verdicts > 0 ? saved : undefined;
}
