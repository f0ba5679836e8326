import { renderPrompt } from "../prompts/index.ts";
import { Critique, summarizeCritique } from "../review/index.ts";
import { doc, required, type SpecContext } from "./context.ts";
import { EXECUTOR, jsonPass, promptPass, REVIEWER, type PassResult } from "./pass.ts";
import { taskFailedReason } from "./plan.ts";
import type { ExecuteDeps, Models, StepRecord } from "./types.ts";
import { errorLine } from "../core/index.ts";

/*
 * What runs after a phase's tasks, before its commit (the phase review gate and post-review
 * hardening). Every step may fail without losing work: a failure is a warning in the
 * step's record and the phase goes on to verification and its commit.
 */

function record(name: string, pass: PassResult<unknown>, outcome: string): StepRecord {
  const warning = pass.error !== undefined ? errorLine(pass.error) : undefined;
  return {
    name,
    outcome: warning ? `failed: ${warning}` : outcome,
    model: pass.model,
    sessionID: pass.sessionID,
    dialog: pass.dialog,
    warning,
  };
}

/** An executor pass's outcome: its own TASK_FAILED line is a warning, not a stop. */
function executorOutcome(pass: PassResult): { outcome: string; warning?: string } {
  const failed = taskFailedReason(pass.text);
  return failed === undefined ? { outcome: "done" } : { outcome: `reported TASK_FAILED: ${failed}`, warning: `TASK_FAILED: ${failed}` };
}

/**
 * Review gate: the secondary model (read-only, clean session) writes a report of the phase's
 * uncommitted changes; when it has findings, the primary model (executor) applies the fixes.
 */
export async function reviewGate(
  deps: ExecuteDeps,
  models: Models,
  ctx: SpecContext,
  group: number,
  summaries: string,
): Promise<StepRecord[]> {
  if (!deps.settings.reviewGate) return [{ name: "review gate", outcome: "skipped (spec.review_gate is off)" }];
  const { docs } = ctx;
  const reviewPrompt = renderPrompt(
    "phase-review",
    {
      phase_number: group,
      tasks_md: required(docs.tasks),
      requirements_md: required(docs.requirements),
      design_md: required(docs.design),
      research_md: doc(docs.research),
      execution_summaries: doc(summaries),
      questions_md: doc(docs.questions),
      codebase_summary: doc(ctx.codebaseSummary),
    },
    { env: deps.env },
  );
  const review = await jsonPass(
    deps,
    { agent: REVIEWER, model: models.secondary, title: `otto: review phase ${group}` },
    reviewPrompt,
    Critique,
  );
  const critique = review.value;
  const steps = [record("review gate (secondary)", review, critique ? summarizeCritique(critique) : "")];
  // No findings, nothing to fix (a verdict without issues needs no fix session).
  if (!critique || critique.issues.length === 0) return steps;

  const fixPrompt = renderPrompt(
    "phase-fix",
    {
      phase_number: group,
      review_report: review.text,
      requirements_md: doc(docs.requirements),
      design_md: doc(docs.design),
      tasks_md: doc(docs.tasks),
      check_commands: ctx.checkCommands,
      codebase_summary: doc(ctx.codebaseSummary),
    },
    { env: deps.env },
  );
  const fix = await promptPass(deps, { agent: EXECUTOR, model: models.primary, title: `otto: fix phase ${group} review` }, fixPrompt);
  const fixed = executorOutcome(fix);
  steps.push({
    ...record("review fixes (primary)", fix, fixed.outcome === "done" ? "fixes applied" : fixed.outcome),
    warning: fix.error ? errorLine(fix.error) : fixed.warning,
  });
  return steps;
}

type Hardening = "external-assumptions" | "domain-hardening";

const HARDENING: Record<Hardening, { name: string; setting: "externalAssumptions" | "domainHardening"; key: string }> = {
  "external-assumptions": { name: "external assumptions", setting: "externalAssumptions", key: "spec.external_assumptions" },
  "domain-hardening": { name: "domain hardening", setting: "domainHardening", key: "spec.domain_hardening" },
};

/** A post-review hardening pass: the primary model (executor) edits the working tree. */
export async function hardeningPass(
  deps: ExecuteDeps,
  models: Models,
  ctx: SpecContext,
  group: number,
  which: Hardening,
): Promise<StepRecord> {
  const meta = HARDENING[which];
  if (!deps.settings[meta.setting]) return { name: meta.name, outcome: `skipped (${meta.key} is off)` };
  const { docs } = ctx;
  const common = {
    phase_number: group,
    requirements_md: doc(docs.requirements),
    design_md: doc(docs.design),
    tasks_md: doc(docs.tasks),
    check_commands: ctx.checkCommands,
    codebase_summary: doc(ctx.codebaseSummary),
  };
  const prompt =
    which === "external-assumptions"
      ? renderPrompt("external-assumptions", { ...common, research_md: doc(docs.research) }, { env: deps.env })
      : renderPrompt("domain-hardening", common, { env: deps.env });
  const pass = await promptPass(deps, { agent: EXECUTOR, model: models.primary, title: `otto: ${meta.name} phase ${group}` }, prompt);
  const outcome = executorOutcome(pass);
  return { ...record(meta.name, pass, outcome.outcome), warning: pass.error ? errorLine(pass.error) : outcome.warning };
}
