import { UsageRecord, formatCost, formatTokenCount, formatUsage, type Usage } from "../../cost/index.ts";

/*
 * What a stage run spent, as the stage's output shows it and as its history record keeps it (pure).
 * History records are committed with the spec, so the spend of every stage travels with it: the
 * `## Spend` table holds exact figures (tokens as counted, dollars to the micro-dollar), and
 * `/otto-spec status` sums them back.
 */

/** One pass of a stage (a write, a review, a refinement, a question) and what it spent. */
export interface PassSpend {
  /** "write", "review", "refine", "run", "question Q3" … */
  label: string;
  /** "provider/model"; empty when the pass spans models (a question: answer and check). */
  model: string;
  usage: Usage;
}

/** A stage run's spend: in all, per model, per pass. */
export interface StageSpend {
  usage: Usage;
  byModel: Record<string, Usage>;
  passes: PassSpend[];
}

/** "6.02k tokens, $0.03 (5 model calls)". */
export function spendLine(usage: Usage): string {
  return `${formatUsage(usage)} (${usage.requests} model call${usage.requests === 1 ? "" : "s"})`;
}

/** Tokens and cost cells of a summary table row. */
export function spendCells(usage: Usage): [string, string] {
  return [formatTokenCount(usage), formatCost(usage)];
}

const COLUMNS = ["", "calls", "input", "output", "reasoning", "cache read", "cache write", "cost (USD)", "unpriced calls"];

function exactRow(name: string, u: Usage): string {
  const cells = [name, u.requests, u.input, u.output, u.reasoning, u.cacheRead, u.cacheWrite, u.usd.toFixed(6), u.unpriced].map(String);
  return `| ${cells.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;
}

/** The history record's `## Spend` section: per pass, per model and the total, exact. */
export function renderSpendSection(spend: StageSpend): string[] {
  return [
    "## Spend",
    "",
    spendLine(spend.usage),
    "",
    `| ${COLUMNS.join(" | ")} |`,
    `|${COLUMNS.map(() => "---").join("|")}|`,
    ...spend.passes.map((p, i) => exactRow(`pass ${i + 1}: ${p.label}${p.model ? ` (${p.model})` : ""}`, p.usage)),
    ...Object.entries(spend.byModel)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([model, usage]) => exactRow(`model ${model}`, usage)),
    exactRow("total", spend.usage),
  ];
}

function rowUsage(cells: readonly string[]): Usage | undefined {
  const [requests, input, output, reasoning, cacheRead, cacheWrite, usd, unpriced] = cells.map(Number);
  const parsed = UsageRecord.safeParse({ requests, input, output, reasoning, cacheRead, cacheWrite, usd, unpriced });
  return parsed.success && cells.length >= 8 && cells.every((c) => c.trim() !== "" && Number.isFinite(Number(c))) ? parsed.data : undefined;
}

/**
 * The spend a history record holds (its `## Spend` table's total and model rows); undefined for a
 * record without one (written before stages were accounted, or edited by hand beyond reading).
 */
export function parseSpendSection(text: string): { usage: Usage; byModel: Record<string, Usage> } | undefined {
  const start = text.search(/^## Spend$/m);
  if (start < 0) return undefined;
  const rest = text.slice(start + "## Spend".length);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  let usage: Usage | undefined;
  const byModel: Record<string, Usage> = {};
  for (const line of section.split("\n")) {
    if (!line.startsWith("| ")) continue;
    const cells = line
      .slice(2, line.endsWith(" |") ? -2 : undefined)
      .split(" | ")
      .map((c) => c.trim());
    const [name = "", ...numbers] = cells;
    const row = rowUsage(numbers);
    if (!row) continue;
    if (name === "total") usage = row;
    else if (name.startsWith("model ")) byModel[name.slice("model ".length)] = row;
  }
  return usage ? { usage, byModel } : undefined;
}
