import { z } from "zod";
import { RuleGlob, RULE_ID, RuleText, type Rule, type RuleProposal } from "../index.ts";
import type { Signal } from "../signals/index.ts";

/*
 * Pure: what the two models answered, validated (their output is untrusted JSON), and turned into
 * the store's proposals. A rule's text is plain text (RuleText: one paragraph, no fence, capped);
 * a proposal that cites no signal of this run, or a glob that leaves the repository, is dropped.
 */

/** The primary model's grouping (prompts/rules-learn-group.md). Invalid entries are dropped one by one, not the answer. */
export const Grouping = z.object({
  rules: z.array(z.unknown()).default([]),
  retire: z.array(z.unknown()).default([]),
});

const Proposed = z.object({
  text: RuleText,
  scope: z.array(RuleGlob).min(1).max(20).default(["**"]),
  signals: z.array(z.string()).min(1),
});

const Retirement = z.object({
  id: z.string().regex(RULE_ID),
  signals: z.array(z.string()).min(1),
  reason: z.string().default(""),
});

/** The secondary model's verdicts (prompts/rules-learn-check.md). */
export const Verdicts = z.object({
  verdicts: z.array(
    z.object({
      proposal: z.number().int().positive(),
      verdict: z.enum(["keep", "drop"]),
      reason: z.string().default(""),
    }),
  ),
});
export type Verdicts = z.infer<typeof Verdicts>;

/** A proposal with the signals behind it, for the check and the store. */
export interface Candidate {
  kind: "rule" | "retire";
  text: string;
  scope: string[];
  /** retire: the rule's id. */
  id?: string;
  reason?: string;
  signals: Signal[];
}

/**
 * The grouping's valid entries, each with its signals of this run (unknown ids dropped), at most
 * `max` rules; retirements only of rules the repository has and that are not retired yet.
 */
export function candidatesOf(
  raw: z.infer<typeof Grouping>,
  signals: readonly Signal[],
  existing: readonly Rule[],
  max: number,
): Candidate[] {
  const byId = new Map(signals.map((s) => [s.id, s]));
  const cited = (ids: readonly string[]) => [...new Set(ids)].map((id) => byId.get(id)).filter((s): s is Signal => s !== undefined);
  const out: Candidate[] = [];
  for (const entry of raw.rules) {
    const parsed = Proposed.safeParse(entry);
    if (!parsed.success) continue;
    const backing = cited(parsed.data.signals);
    if (backing.length === 0) continue;
    if (out.filter((c) => c.kind === "rule").length >= max) break;
    out.push({ kind: "rule", text: parsed.data.text, scope: parsed.data.scope, signals: backing });
  }
  for (const entry of raw.retire) {
    const parsed = Retirement.safeParse(entry);
    if (!parsed.success) continue;
    const rule = existing.find((r) => r.id === parsed.data.id && r.status !== "retired" && r.status !== "rejected");
    const backing = cited(parsed.data.signals);
    if (!rule || backing.length === 0) continue;
    out.push({
      kind: "retire",
      id: rule.id,
      text: rule.text,
      scope: rule.scope,
      reason: RuleText.catch("").parse(parsed.data.reason),
      signals: backing,
    });
  }
  return out;
}

/** The candidates the check kept: a verdict of "keep" by number (1-based); no verdict is a drop. */
export function kept(candidates: readonly Candidate[], verdicts: Verdicts): Candidate[] {
  const keep = new Set(verdicts.verdicts.filter((v) => v.verdict === "keep").map((v) => v.proposal));
  return candidates.filter((_c, i) => keep.has(i + 1));
}

/** A kept rule as the store takes it: its sources are the signals' links, `seen` their number. */
export function toProposal(candidate: Candidate): RuleProposal {
  const times = candidate.signals.map((s) => s.at).sort();
  return {
    text: candidate.text,
    scope: candidate.scope,
    sources: candidate.signals.map((s) => ({ kind: s.kind, url: s.url, author: s.author, at: s.at })),
    seen: candidate.signals.length,
    first_seen: times[0] ?? "",
    last_seen: times.at(-1) ?? "",
  };
}

/** `/otto remember <rule>` needs no model to say what the rule is: it becomes a proposal as written (still pending). */
export function rememberedProposal(signal: Signal): RuleProposal | undefined {
  const text = RuleText.safeParse(signal.rule ?? "");
  if (!text.success) return undefined;
  return { ...toProposal({ kind: "rule", text: text.data, scope: ["**"], signals: [signal] }) };
}

/** The events, as the prompts show them: JSON lines, one per signal. */
export function signalLines(signals: readonly Signal[]): string {
  return signals.map((s) => JSON.stringify(s)).join("\n");
}

/** The candidates with their events, numbered, for the check. */
export function candidateText(candidates: readonly Candidate[]): string {
  return candidates
    .map((c, i) =>
      [
        `## Proposal ${i + 1}: ${c.kind === "rule" ? "new rule" : `retire ${c.id ?? ""}`}`,
        `text: ${c.text}`,
        `scope: ${c.scope.join(", ")}`,
        ...(c.reason ? [`reason: ${c.reason}`] : []),
        "events:",
        signalLines(c.signals),
      ].join("\n"),
    )
    .join("\n\n");
}
