import fs from "node:fs/promises";
import path from "node:path";
import { OttoError, assertOttoPathSafe, readTextIfExists } from "../../core/index.ts";
import { formatUsage } from "../../cost/index.ts";
import { listSpecs, specPaths } from "../layout.ts";
import { slugFromPrompt } from "../slug.ts";
import { resolveStageModels, type SpecDeps } from "./deps.ts";
import { extractOpenQuestions } from "./open-questions.ts";
import { isoDate, recordRaisedQuestions } from "./questions-file.ts";
import { passRows, renderStageReport } from "./render-output.ts";
import { modelsOf, runReviewed, saveHistory } from "./reviewed.ts";
import { readSpecDocs, writeSpecFile } from "./spec-files.ts";
import { runStage, StageRun } from "./stage-run.ts";
import type { DocStage } from "./stage-vars.ts";
import { nextStepAfter, relativeTo, resolveTarget, type SpecTarget } from "./target.ts";

export interface VerbResult {
  title: string;
  output: string;
}

/**
 * `/otto-spec requirements|research|design`: refine or write one document through the multi-model
 * review, append the questions it raises to questions.md, record the run in history/.
 */
export async function runDocumentStage(deps: SpecDeps, stage: DocStage, flag?: string, request?: string): Promise<VerbResult> {
  const target = resolveTarget(deps.repoRoot, flag, stage);
  const run = new StageRun(deps, stage, target.slug, `/otto-spec ${stage} --spec ${target.slug}`, deps.now());
  const refining = target.present.has(stage);
  return runStage(
    deps,
    run,
    () => writeDocument(deps, target, stage, stage, run, request),
    () => ({
      undone: [`${stage}.md was not ${refining ? "refined" : "written"}: every spec file is as it was before the stage`],
      rel: target.rel,
    }),
  );
}

/** `/otto-spec add <prompt>`: a new spec with reviewed requirements.md. */
export async function addSpec(deps: SpecDeps, prompt: string): Promise<VerbResult> {
  if (!prompt.trim()) throw new OttoError("usage", "The prompt is empty.", '/otto-spec add "<what you want to build>"');
  const slug = slugFromPrompt(
    prompt,
    listSpecs(deps.repoRoot).map((s) => s.slug),
  );
  const paths = specPaths(deps.repoRoot, slug);
  // Claims the slug (mkdir fails when it exists), so a concurrent add cannot take the same one.
  await assertOttoPathSafe(paths.dir);
  await fs.mkdir(path.dirname(paths.dir), { recursive: true });
  await fs.mkdir(paths.dir);
  const target: SpecTarget = { slug, paths, present: new Set(), rel: relativeTo(deps.repoRoot) };
  const run = new StageRun(deps, "add", slug, `/otto-spec add "${prompt.replace(/"/g, "'")}"`, deps.now());
  const work = async () => {
    try {
      return await writeDocument(deps, target, "requirements", "add", run, prompt);
    } catch (error) {
      // A spec without requirements.md would only confuse --spec inference: remove what was made.
      if ((await readTextIfExists(paths.requirements)) === undefined) await fs.rm(paths.dir, { recursive: true, force: true });
      throw error;
    }
  };
  return runStage(deps, run, work, () => ({
    undone: [`the spec ${slug} was not created (requirements.md was not written)`],
    rel: target.rel,
  }));
}

async function writeDocument(
  deps: SpecDeps,
  target: SpecTarget,
  stage: DocStage,
  record: string,
  stageRun: StageRun,
  request?: string,
): Promise<VerbResult> {
  const { paths, slug, rel } = target;
  const docs = await readSpecDocs(paths);
  const refining = docs[stage] !== undefined;
  const models = await resolveStageModels(deps);
  const codebaseSummary = await deps.codebaseSummary(deps.repoRoot);
  const input = { docs, codebaseSummary, request };
  const result = await runReviewed({ deps, target, stage, record, input, models, stageRun });

  await writeSpecFile(paths[stage], result.final, deps.secrets);
  const at = deps.now();
  const questions = await recordRaisedQuestions(paths, extractOpenQuestions(result.final), `${stage} (${isoDate(at)})`, deps.secrets);
  const questionNotes = questions.added.map((q) => `Q${q.number} raised: ${q.title}`);
  const history = await saveHistory(
    deps,
    target,
    {
      stage: record,
      slug,
      at,
      outcome: `wrote ${stage}.md${refining ? " (refinement of the existing file)" : ""}`,
      models: modelsOf(models),
      passes: result.passes,
      critiques: result.critiques,
      notes: [...result.warnings, ...questionNotes],
      dialogs: result.dialogs,
    },
    stageRun,
  );
  const spend = stageRun.spend();

  const verb = record === "add" ? `Created spec ${slug}` : `${stage}.md ${refining ? "refined" : "written"} for ${slug}`;
  const output = renderStageReport({
    heading: verb,
    written: [`${rel(paths[stage])}${refining ? " (refined from the existing file)" : ""}`],
    lines: record === "add" ? [`Spec: ${slug} (${rel(paths.dir)})`] : undefined,
    passes: passRows(
      spend.passes,
      result.passes.map((p) => p.summary),
    ),
    total: spend.usage,
    questions: { added: questions.added, open: questions.open, file: rel(paths.questions), command: `/otto-spec questions --spec ${slug}` },
    warnings: result.warnings,
    notes: models.notes,
    history: history ? rel(history) : undefined,
    next: nextStepAfter(stage, slug),
  });
  return { title: `otto-spec: ${verb} (${formatUsage(spend.usage)})`, output };
}
