import { isOttoError, errorText } from "../../core/index.ts";
import { formatUsage, isBudgetStop, withAccount } from "../../cost/index.ts";
import { renderPrompt } from "../../prompts/index.ts";
import type { ChildOptions, ModelRef } from "../../session/index.ts";
import type { Question } from "../questions/schema.ts";
import { resolveStageModels, type SpecDeps } from "./deps.ts";
import type { VerbResult } from "./document-stage.ts";
import {
  answerCommand,
  decide,
  needsValidation,
  questionContext,
  renderQuestionsReport,
  Resolution,
  Validation,
  type Outcome,
} from "./questions-flow.ts";
import { readQuestionList, recordAnswers, unanswered } from "./questions-file.ts";
import { passRows } from "./render-output.ts";
import { modelsOf, saveHistory } from "./reviewed.ts";
import { outcomeOf, runStage, StageRun } from "./stage-run.ts";
import { readSpecDocs, type SpecDocs } from "./spec-files.ts";
import { doc } from "./stage-vars.ts";
import { resolveTarget, type SpecTarget } from "./target.ts";

const PIPELINE = ["requirements", "research", "design", "tasks"] as const;

/** Where answers get folded in: re-run the earliest stage that raised one of them. */
export function foldInCommand(questions: readonly Question[], slug: string): string {
  const stages = questions.map((q) => PIPELINE.findIndex((s) => q.source.trim().toLowerCase().startsWith(s)));
  const known = stages.filter((i) => i >= 0);
  const stage = PIPELINE[known.length ? Math.min(...known) : 0] ?? "requirements";
  return `/otto-spec ${stage === "tasks" ? "task generate" : stage} --spec ${slug} (re-running a stage folds the answers in)`;
}

interface Ctx {
  deps: SpecDeps;
  docs: SpecDocs;
  codebaseSummary?: string;
}

function child(ctx: Ctx, model: ModelRef, title: string): ChildOptions {
  const { deps } = ctx;
  return {
    parentID: deps.parentID,
    directory: deps.repoRoot,
    agent: "otto-reviewer",
    model,
    title,
    timeoutMs: deps.stageTimeoutMs,
    signal: deps.signal,
  };
}

/** Step 1 (primary) and, for a usable answer, step 2 (secondary, clean session) for one question. */
async function settle(ctx: Ctx, q: Question, primary: ModelRef, secondary: ModelRef): Promise<Outcome> {
  const { docs, deps } = ctx;
  const shared = {
    question: q.question,
    question_context: questionContext(q),
    requirements_md: doc(docs.requirements),
    research_md: doc(docs.research),
    design_md: doc(docs.design),
    questions_md: doc(docs.questions),
    codebase_summary: doc(ctx.codebaseSummary),
  };
  try {
    const resolvePrompt = renderPrompt("question-resolve", { ...shared, tasks_md: doc(docs.tasks) }, { env: deps.env });
    const resolution = (await deps.runner.runChildJson(child(ctx, primary, `otto: answer Q${q.number}`), resolvePrompt, Resolution)).value;
    if (!needsValidation(resolution)) return decide(resolution);
    const validatePrompt = renderPrompt(
      "question-validate",
      { ...shared, proposed_answer: resolution.answer, evidence: resolution.evidence },
      { env: deps.env },
    );
    const validation = (
      await deps.runner.runChildJson(child(ctx, secondary, `otto: check the answer to Q${q.number}`), validatePrompt, Validation)
    ).value;
    return decide(resolution, validation);
  } catch (error) {
    if (deps.signal?.aborted || isBudgetStop(error) || (isOttoError(error) && error.code === "session_aborted")) throw error;
    return { kind: "failed", error: errorText(error) };
  }
}

/** `/otto-spec questions`: auto-answer what the evidence settles, list the rest for the user. */
export async function resolveQuestions(deps: SpecDeps, flag?: string): Promise<VerbResult> {
  const target = resolveTarget(deps.repoRoot, flag, "questions");
  const { paths, slug, rel } = target;
  const docs = await readSpecDocs(paths);
  const open = unanswered(readQuestionList(docs.questions));
  if (open.length === 0) {
    const none = docs.questions === undefined ? "This spec has no questions.md yet." : "Every question in questions.md is answered.";
    return {
      title: `otto-spec: no open questions (${slug})`,
      output: `## Questions of ${slug}\n\n${none}\n\nNext step: ${foldInCommand([], slug)}`,
    };
  }
  const run = new StageRun(deps, "questions", slug, `/otto-spec questions --spec ${slug}`, deps.now());
  const settled = new Map<number, string>();
  return runStage(
    deps,
    run,
    () => settleAll(deps, target, docs, open, run, settled),
    () => ({
      undone: [
        `${
          open
            .filter((q) => !settled.has(q.number))
            .map((q) => `Q${q.number}`)
            .join(", ") || "no question"
        } not settled (still unanswered); the answers accepted before the stop are in ${rel(paths.questions)}`,
      ],
      rel,
      results: open.map((q) => settled.get(q.number) ?? "not settled"),
    }),
  );
}

async function settleAll(
  deps: SpecDeps,
  target: SpecTarget,
  docs: SpecDocs,
  open: readonly Question[],
  run: StageRun,
  settled: Map<number, string>,
): Promise<VerbResult> {
  const { paths, slug, rel } = target;
  const models = await resolveStageModels(deps);
  const ctx: Ctx = { deps, docs, codebaseSummary: await deps.codebaseSummary(deps.repoRoot) };
  let done = 0;
  deps.progress(`questions: auto-resolving ${open.length} open question(s)`);
  // In parallel: the session runner bounds the model turns in flight. Every one is waited for, so
  // what a budget stop leaves is settled (and its spend counted) before the stage reports.
  const outcomes = await Promise.allSettled(
    open.map(async (question) => {
      const outcome = await withAccount(run.pass(`question Q${question.number}`), () =>
        settle(ctx, question, models.primary, models.secondary),
      );
      settled.set(question.number, outcome.kind);
      deps.progress(`questions: ${++done}/${open.length} settled`);
      return { question, outcome };
    }),
  );
  const results = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
  const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
  const failure = rejected ? (rejected.reason instanceof Error ? rejected.reason : new Error(String(rejected.reason))) : undefined;
  // Answers accepted before a stop are finished work: they are written either way.
  const edits = results.flatMap(({ question, outcome }) =>
    outcome.kind === "auto-answered"
      ? [{ ref: question.number, answer: outcome.answer, options: { status: "auto-answered" as const, validated_by: "secondary" } }]
      : [],
  );
  const written = edits.length > 0 ? await recordAnswers(paths, edits, true, deps.secrets) : [];
  if (failure !== undefined) {
    await saveQuestionsHistory(deps, target, results, modelsOf(models), run, outcomeOf(failure));
    throw failure;
  }
  const after = readQuestionList((await readSpecDocs(paths)).questions);
  await saveQuestionsHistory(deps, target, results, modelsOf(models), run);
  const spend = run.spend();
  const byQuestion = new Map(results.map(({ question, outcome }) => [`question Q${question.number}`, outcome.kind]));
  const output = renderQuestionsReport({
    slug,
    questionsFile: rel(paths.questions),
    results,
    remaining: unanswered(after),
    notes: models.notes,
    foldIn: foldInCommand(written, slug),
    passes: passRows(
      spend.passes,
      spend.passes.map((p) => byQuestion.get(p.label) ?? ""),
    ),
    total: spend.usage,
  });
  return {
    title: `otto-spec: ${written.length} question(s) auto-answered, ${unanswered(after).length} open (${slug}) (${formatUsage(spend.usage)})`,
    output,
  };
}

function saveQuestionsHistory(
  deps: SpecDeps,
  target: SpecTarget,
  results: ReadonlyArray<{ question: Question; outcome: Outcome }>,
  models: Record<string, string>,
  run: StageRun,
  outcome = "auto-resolution of open questions",
) {
  const notes = results.map(
    ({ question, outcome }) => `Q${question.number}: ${outcome.kind}${"reason" in outcome && outcome.reason ? ` (${outcome.reason})` : ""}`,
  );
  return saveHistory(deps, target, { stage: "questions", slug: target.slug, at: deps.now(), outcome, models, notes }, run);
}

/** `/otto-spec questions answer Qn <text>`: records the user's answer as `answered`. */
export async function answerOne(deps: SpecDeps, flag: string | undefined, ref: string, text: string): Promise<VerbResult> {
  const { paths, slug, rel } = resolveTarget(deps.repoRoot, flag, "questions");
  const [written] = await recordAnswers(paths, [{ ref, answer: text }], false, deps.secrets);
  const left = unanswered(readQuestionList((await readSpecDocs(paths)).questions));
  const next = left[0] ? answerCommand(left[0], slug) : foldInCommand(written ? [written] : [], slug);
  const output = [
    `## Answer recorded: Q${written?.number ?? ref} of ${slug}`,
    "",
    `Written: ${rel(paths.questions)} (status: answered)`,
    "",
    left.length ? `Open questions left: ${left.map((q) => `Q${q.number}`).join(", ")}` : "No open questions left.",
    "",
    `Next step: ${next}`,
  ].join("\n");
  return { title: `otto-spec: answered Q${written?.number ?? ref}`, output };
}
