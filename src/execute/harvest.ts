import fs from "node:fs/promises";
import { z } from "zod";
import { realTarget, redact, withFileLock, writeFileAtomic, errorLine } from "../core/index.ts";
import { renderPrompt } from "../prompts/index.ts";
import { appendQuestions, parseQuestions, serializeQuestion, type NewQuestion } from "../spec/index.ts";
import { doc, type SpecContext } from "./context.ts";
import { jsonPass, REVIEWER } from "./pass.ts";
import type { ExecuteDeps, Models, StepRecord } from "./types.ts";

/** The question-harvest prompt's envelope. */
export const Harvest = z.object({
  questions: z.array(
    z.object({
      title: z.string().min(1),
      question: z.string().min(1),
      context: z.string().default(""),
      source: z.string().default(""),
    }),
  ),
});
export type Harvest = z.infer<typeof Harvest>;

/** Dialogs beyond this are cut from the front of each log's share (the end holds the conclusions). */
const LOGS_MAX = 80_000;

/**
 * After a phase: a read-only pass over the phase's task dialogs extracts the uncertainties and
 * assumptions worth a human's attention and appends them to questions.md. Never blocks and never
 * throws: a failure is a warning in the phase's record.
 */
export async function harvestQuestions(
  deps: ExecuteDeps,
  models: Models,
  ctx: SpecContext,
  group: number,
  dialogs: readonly string[],
): Promise<StepRecord> {
  if (dialogs.length === 0) return { name: "question harvest", outcome: "no task dialogs" };
  const share = Math.floor(LOGS_MAX / dialogs.length);
  const logs = dialogs.map((d) => (d.length > share ? `…${d.slice(-share)}` : d)).join("\n\n");
  const prompt = renderPrompt(
    "question-harvest",
    {
      execution_logs: logs,
      phase_number: group,
      questions_md: doc(ctx.docs.questions),
      requirements_md: doc(ctx.docs.requirements),
      design_md: doc(ctx.docs.design),
    },
    { env: deps.env },
  );
  const pass = await jsonPass(
    deps,
    { agent: REVIEWER, model: models.primary, title: `otto: questions of phase ${group}` },
    prompt,
    Harvest,
  );
  if (!pass.value)
    return {
      name: "question harvest",
      outcome: `failed: ${errorLine(pass.error)}`,
      model: pass.model,
      sessionID: pass.sessionID,
      warning: errorLine(pass.error),
    };
  try {
    const date = deps.now().toISOString().slice(0, 10);
    const added = await appendHarvest(ctx.paths.questions, pass.value, group, date, deps.secrets);
    const outcome = added.length ? `added ${added.map((n) => `Q${n}`).join(", ")} to questions.md` : "no new questions";
    return { name: "question harvest", outcome, model: pass.model, sessionID: pass.sessionID };
  } catch (error) {
    return { name: "question harvest", outcome: `failed: ${errorLine(error)}`, warning: errorLine(error) };
  }
}

/** Appends the new questions (duplicates of existing ones skipped) under questions.md's lock; returns their numbers. */
export async function appendHarvest(
  file: string,
  harvest: Harvest,
  group: number,
  date: string,
  secrets: readonly string[] = [],
): Promise<number[]> {
  const target = await realTarget(file);
  return withFileLock(target, async () => {
    const current = await fs.readFile(target, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return "";
      throw error;
    });
    const list = parseQuestions(current).questions;
    const entries = harvest.questions.map((q): NewQuestion => {
      const extra: Record<string, string> = q.context.trim() ? { context: q.context.trim() } : {};
      return { title: q.title, question: q.question, source: `${q.source.trim() || `phase-${group}`} (${date})`, extra };
    });
    const { added } = appendQuestions(list, entries);
    if (added.length === 0) return [];
    const head = current.trim() ? current.trimEnd() : "# Questions";
    await writeFileAtomic(target, `${redact([head, ...added.map(serializeQuestion)].join("\n\n"), secrets)}\n`, 0o644);
    return added.map((q) => q.number);
  });
}
