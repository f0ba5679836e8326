import { z } from "zod";
import { formatUsage, type Usage } from "../../cost/index.ts";
import type { Question } from "../questions/schema.ts";
import { passTable, type ReportPass } from "./render-output.ts";
import { firstLine } from "../../core/index.ts";

/*
 * Auto-resolution of open questions, as pure decisions:
 * the primary answers from evidence or declines; only an answer the secondary accepts in a clean
 * session is recorded, as `auto-answered` with `validated_by: secondary`.
 */

/** question-resolve's envelope (docs/prompts.md, "Resolution"). */
export const Resolution = z.object({
  answerable: z.boolean(),
  answer: z.string().default(""),
  confidence: z.enum(["high", "medium", "low"]).default("low"),
  evidence: z.array(z.string()).default([]),
});
export type Resolution = z.infer<typeof Resolution>;

/** question-validate's envelope (docs/prompts.md, "Validation"). */
export const Validation = z.object({
  verdict: z.enum(["accept", "reject"]),
  reason: z.string().default(""),
});
export type Validation = z.infer<typeof Validation>;

export type Outcome =
  | { kind: "auto-answered"; answer: string; reason: string }
  /** The primary found no answer in the evidence: a person must decide. */
  | { kind: "declined"; note: string }
  /** The primary answered, the secondary did not agree. */
  | { kind: "disagreed"; proposed: string; reason: string }
  /** A model call failed; the question stays open. */
  | { kind: "failed"; error: string };

/**
 * Only answers worth a second opinion go to the secondary: answerable, with an answer, and not
 * `low` confidence (the prompt reserves `low` for weak evidence).
 */
export function needsValidation(resolution: Resolution): boolean {
  return resolution.answerable && resolution.answer.trim() !== "" && resolution.confidence !== "low";
}

export function decide(resolution: Resolution, validation?: Validation): Outcome {
  if (!needsValidation(resolution)) {
    const why = resolution.answerable ? `only ${resolution.confidence} confidence: ` : "";
    return { kind: "declined", note: `${why}${resolution.answer.trim() || "the evidence does not settle it"}` };
  }
  if (validation?.verdict === "accept") return { kind: "auto-answered", answer: autoAnswerText(resolution), reason: validation.reason };
  return {
    kind: "disagreed",
    proposed: resolution.answer.trim(),
    reason: validation?.reason.trim() || "the secondary model did not accept it",
  };
}

/** The answer as written to questions.md: the answer, then its evidence (the source reasoning). */
export function autoAnswerText(resolution: Resolution): string {
  const evidence = resolution.evidence.map((e) => e.trim()).filter(Boolean);
  if (evidence.length === 0) return resolution.answer.trim();
  return [resolution.answer.trim(), "", "Evidence:", ...evidence.map((e) => `- ${e}`)].join("\n");
}

/** The context a resolver gets about a question: where it came from and what was recorded with it. */
export function questionContext(question: Question): string {
  const extra = Object.entries(question.extra).map(([key, value]) => `${key}: ${value}`);
  return [`Q${question.number}: ${question.title}`, `source: ${question.source}`, ...extra].join("\n");
}

/** The exact command a person runs to answer a question. */
export function answerCommand(question: Pick<Question, "number">, slug: string): string {
  return `/otto-spec questions answer Q${question.number} "<your answer>" --spec ${slug}`;
}

export interface QuestionsReport {
  slug: string;
  questionsFile: string;
  results: ReadonlyArray<{ question: Question; outcome: Outcome }>;
  /** Unanswered after the run, in file order. */
  remaining: readonly Question[];
  notes: readonly string[];
  /** The command that folds the answers into the documents, when nothing is left for the user. */
  foldIn: string;
  /** A row per question with what answering it spent, and the total (named in the heading too). */
  passes?: readonly ReportPass[];
  total?: Usage;
}

const OUTCOME_LINE: Record<Outcome["kind"], string> = {
  "auto-answered": "auto-answered (validated by the secondary model)",
  declined: "needs you: the primary model found no answer in the evidence",
  disagreed: "needs you: the secondary model did not accept the proposed answer",
  failed: "needs you: auto-resolution failed",
};

export function renderQuestionsReport(report: QuestionsReport): string {
  const answered = report.results.filter((r) => r.outcome.kind === "auto-answered").length;
  const total = report.total ? ` (${formatUsage(report.total)})` : "";
  const out = [`## Questions of ${report.slug}: ${answered} auto-answered, ${report.remaining.length} left for you${total}`, ""];
  for (const { question, outcome } of report.results) {
    out.push(`- **Q${question.number}** ${question.title}: ${OUTCOME_LINE[outcome.kind]}`);
    if (outcome.kind === "auto-answered") out.push(`  Answer: ${firstLine(outcome.answer, 200)}`);
    if (outcome.kind === "declined") out.push(`  Why: ${firstLine(outcome.note, 200)}`);
    if (outcome.kind === "disagreed")
      out.push(`  Proposed: ${firstLine(outcome.proposed, 200)}`, `  Rejected because: ${firstLine(outcome.reason, 200)}`);
    if (outcome.kind === "failed") out.push(`  ${firstLine(outcome.error, 200)}`);
  }
  if (report.passes?.length) out.push("", passTable(report.passes, report.total));
  if (answered > 0) out.push("", `Written: ${report.questionsFile}`);
  if (report.remaining.length > 0) {
    out.push("", "### Open questions for you", "");
    for (const q of report.remaining) {
      out.push(`**Q${q.number}: ${q.title}** (${q.source})`, "", q.question, "", `Answer with: \`${answerCommand(q, report.slug)}\``, "");
    }
    out.pop();
  }
  if (report.notes.length > 0) out.push("", ...report.notes.map((n) => `Note: ${n}`));
  const next = report.remaining[0] ? answerCommand(report.remaining[0], report.slug) : report.foldIn;
  out.push("", `Next step: ${next}`);
  return out.join("\n");
}
