import { formatCost, formatTokens, formatUsage, totalTokens, type Usage } from "../cost/index.ts";
import { OTTO_MARKER } from "../pr/index.ts";
import type { DraftComment } from "./classify.ts";
import { cell } from "../core/index.ts";

/* Markdown shown to the user (the approval table) and posted on the forge (comment and review bodies). Pure. */

const CELL_CHARS = 70;

function gist(c: DraftComment): string {
  const text = c.title ? `${c.title}: ${c.body}` : c.body;
  return c.rule ? `[${c.rule}] ${text}` : text;
}

/** The numbered approval table; comments outside the diff are marked, they go into the summary. */
export function renderTable(comments: readonly DraftComment[], posted: readonly number[] = []): string {
  if (comments.length === 0) return "_No comments._";
  const done = new Set(posted);
  const rows = comments.map((c) => {
    const where = c.inDiff ? String(c.line) : `${c.line} (summary)`;
    const note = done.has(c.id) ? " (posted)" : "";
    return `| ${c.id}${note} | ${cell(c.file, 50)} | ${where} | ${c.severity} | ${cell(gist(c), CELL_CHARS)} |`;
  });
  return ["| # | File | Line | Severity | Comment |", "|---|---|---|---|---|", ...rows].join("\n");
}

const label = (severity: string): string => severity.charAt(0).toUpperCase() + severity.slice(1);

/** An inline comment as posted; the marker keeps otto's watcher from taking it for a reviewer's. */
export function inlineBody(c: DraftComment): string {
  const heading = c.title ? `**${label(c.severity)}: ${c.title}**` : `**${label(c.severity)}**`;
  // The rule's id, in code: whoever reads the comment can find the rule in .otto/rules.md.
  const rule = c.rule ? `\n\n_Team rule \`${c.rule}\` (.otto/rules.md)_` : "";
  return `${OTTO_MARKER}\n${heading}\n\n${c.body.trim()}${rule}`;
}

export interface ReviewBodyInput {
  /** The model's summary, when the user asked for it. */
  summary?: string;
  inlineCount: number;
  /** Chosen comments whose line is outside the diff: the forge would refuse them inline. */
  outside: readonly DraftComment[];
}

/** The review's own body: a header, the optional summary, and the comments that could not go inline. */
export function reviewBody(input: ReviewBodyInput): string {
  const counts = [`${input.inlineCount} inline comment${input.inlineCount === 1 ? "" : "s"}`];
  if (input.outside.length > 0) counts.push(`${input.outside.length} outside the diff (below)`);
  const parts = [`${OTTO_MARKER}\n**otto review**: ${counts.join(", ")}.`];
  if (input.summary?.trim()) parts.push(input.summary.trim());
  if (input.outside.length > 0) {
    parts.push(
      [
        "**Comments on lines outside the diff**",
        ...input.outside.map(
          (c) =>
            `- \`${c.file}:${c.line}\` (${c.severity})${c.title ? ` **${c.title}**` : ""}: ${c.body.trim().replace(/\n+/g, " ")}${c.rule ? ` (team rule \`${c.rule}\`)` : ""}`,
        ),
      ].join("\n"),
    );
  }
  return parts.join("\n\n");
}

/** The output's first line: what the review cost in all. */
export function spendLine(prNumber: number, total: Usage): string {
  return `Review of PR #${prNumber}: ${formatUsage(total)}.`;
}

/** A row per reviewer model and the total: what each model's calls cost. */
export function renderSpend(byModel: ReadonlyMap<string, Usage>, total: Usage): string {
  const row = (name: string, u: Usage) =>
    `| ${name} | ${u.requests} | ${formatTokens(u.input)} | ${formatTokens(u.cacheRead)} | ${formatTokens(u.cacheWrite)} | ${formatTokens(u.output)} | ${formatTokens(totalTokens(u))} | ${formatCost(u)} |`;
  return [
    "| Reviewer | Calls | Input | Cache read | Cache write | Output | Tokens | Cost |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...[...byModel].map(([model, usage]) => row(model, usage)),
    row("**Total**", total),
  ].join("\n");
}
