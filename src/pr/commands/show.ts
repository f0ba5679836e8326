import path from "node:path";
import type { PrContext } from "../context/context.ts";
import { pipelineSummary } from "../pipeline.ts";
import type { PrDocument } from "../store/document.ts";
import { findPr } from "../store/find.ts";
import { locatePr } from "../context/registry.ts";
import { documentKey } from "../store/store.ts";
import { formatUsage, ZERO_USAGE } from "../../cost/index.ts";
import { utcDay } from "../context/daily-caps.ts";
import { docSpentToday } from "../context/spend.ts";
import { cell } from "../../core/index.ts";

type ShowContext = Pick<PrContext, "store" | "registry">;

/** The tracked PR a query names; a PR URL is matched by the PR it points to, whatever its spelling. */
async function findTracked(ctx: ShowContext, query: string | undefined): Promise<PrDocument> {
  const docs = (await ctx.store.list()).docs;
  if (query && /^https?:\/\//i.test(query.trim())) {
    try {
      return findPr(docs, documentKey(locatePr(ctx.registry, { text: query, context: {} }).locator));
    } catch {
      // Not a URL otto can parse: compare it as written.
    }
  }
  return findPr(docs, query);
}

/** The `pr list` table, plus where unreadable documents are. */
export async function listPrs(ctx: Pick<PrContext, "store">): Promise<string> {
  const { docs, broken } = await ctx.store.list();
  const lines: string[] = [];
  if (docs.length === 0) lines.push("No PRs are tracked. Add one with /otto-pr add <url>.");
  else {
    lines.push("| ID | PROVIDER | REPO | BRANCH | STATUS | PIPELINE |", "|---|---|---|---|---|---|");
    for (const d of docs) {
      const pipeline = d.data.pipeline === undefined ? "not checked" : d.data.pipeline === "pending" ? `pending, ${pipelineSummary(d.data.checks)}` : pipelineSummary(d.data.checks);
      lines.push(`| ${d.data.id} | ${d.data.provider} | ${cell(d.data.repo)} | ${cell(d.data.branch)} | ${d.data.status}${d.data.errors > 0 ? " (poll errors)" : ""} | ${pipeline} |`);
    }
    lines.push("", `${docs.length} tracked PR(s). Details: /otto-pr status <id>.`);
  }
  for (const b of broken) lines.push(`Unreadable: ${b.file}: ${b.error}`);
  return lines.join("\n");
}

function checkLine(d: PrDocument): string {
  if (d.data.checks.length === 0) return d.data.pipeline === undefined ? "not checked yet" : "no checks";
  return d.data.checks.map((c) => `${c.name} ${c.state === "success" ? "PASSED" : c.state.toUpperCase()}`).join(", ");
}

/** "Spent: today 3.2k tokens, $0.01; in all 9.8k tokens, $0.04 (fix attempts: 1 5.1k tokens, $0.02; comments: 1)". */
function spendLine(d: PrDocument, now: Date): string {
  const spend = d.data.spend;
  if (!spend) return `Spent: today ${formatUsage(ZERO_USAGE)}; in all ${formatUsage(ZERO_USAGE)}`;
  const attempts = spend.fix_attempts.map((a) => `${a.attempt} ${formatUsage(a.usage)}`);
  const parts = [...(attempts.length > 0 ? [`fix attempts: ${attempts.slice(-5).join("; ")}`] : []), ...(spend.comments.length > 0 ? [`${spend.comments.length} comment(s) answered`] : [])];
  return `Spent: today ${formatUsage(docSpentToday(spend, now))}; in all ${formatUsage(spend.total)}${parts.length > 0 ? ` (${parts.join("; ")})` : ""}`;
}

/** `pr status`: one PR in detail. */
export async function prStatus(ctx: ShowContext, query: string | undefined, now: Date = new Date()): Promise<string> {
  const d = await findTracked(ctx, query);
  const attempts = d.data.status === "fixing" || d.data.fix_attempts > 0 ? ` (attempt ${d.data.fix_attempts}/${d.data.max_fix_attempts})` : "";
  const failed = d.data.checks.filter((c) => c.state === "failure");
  const lines = [
    `PR #${d.data.id}: ${d.data.branch} → ${d.data.target} (${d.data.provider}, ${d.data.repo})`,
    `Title: ${d.data.title}`,
    `URL: ${d.data.url}`,
    `Status: ${d.data.status}${attempts}`,
    `Pipeline: ${checkLine(d)}${d.data.head_sha ? ` on ${d.data.head_sha.slice(0, 7)}` : ""}`,
    ...failed.map((c) => `  - ${c.name}: ${c.detail ?? "failed"}${c.url ? ` (${c.url})` : ""}`),
    `Last checked: ${d.data.last_checked ?? "never"}`,
    `Reviewer comments not yet handled: ${d.data.unseen_comments}`,
    spendLine(d, now),
  ];
  if (d.data.cap_hold === utcDay(now)) lines.push(`Held at a daily cap today (UTC): the watcher fixes and answers again from the next UTC day, or once limits.pr_usd_per_day / watcher_usd_per_day is raised.`);
  if (d.data.last_error) lines.push(`Last poll error (${d.data.errors} in a row; next try ${d.data.retry_at ?? "next cycle"}): ${d.data.last_error}`);
  const last = d.log.at(-1);
  if (last) lines.push(`Last event: ${last}`);
  lines.push(`Document: ${path.join(ctx.store.dir, `${d.key}.md`)}`);
  return lines.join("\n");
}

/** `pr log`: the fix and comment histories and the watcher's log of one PR. */
export async function prLog(ctx: ShowContext, query: string | undefined): Promise<string> {
  const d = await findTracked(ctx, query);
  const lines = [`# PR #${d.data.id} (${d.data.repo}): ${d.data.title}`];
  for (const section of d.sections.filter((s) => s.title === "Fix History" || s.title === "Comment History")) lines.push("", `## ${section.title}`, "", section.body);
  lines.push("", "## Log", "", ...(d.log.length > 0 ? d.log.map((l) => `- ${l}`) : ["(empty)"]));
  return lines.join("\n");
}

/** `pr remove`: stops tracking; the document and its cache are deleted. */
export async function removePr(ctx: ShowContext, query: string): Promise<string> {
  const d = await findTracked(ctx, query);
  await ctx.store.remove(d.key);
  return `Stopped tracking PR #${d.data.id} (${d.data.repo}); removed ${d.key}.md.`;
}
