import { renderPrompt } from "../prompts/index.ts";
import { Critique, formatCritique, isApproval, summarizeCritique } from "../review/index.ts";
import { extractDocument } from "../session/index.ts";
import { renderCommitMessage } from "./commit-message.ts";
import { doc, readDocs, required, type SpecContext } from "./context.ts";
import { commitAll, pendingDiff } from "../workspace/index.ts";
import { baselineOf, guardOf } from "./baseline.ts";
import { type OttoCommit } from "./git.ts";
import { writeStepRecord } from "./history.ts";
import { cancelled, EXECUTOR, jsonPass, promptPass, REVIEWER } from "./pass.ts";
import { taskFailedReason } from "./plan.ts";
import type { ExecuteDeps, Models, StepRecord } from "./types.ts";
import { errorLine } from "../core/index.ts";

export interface DocsReport {
  steps: StepRecord[];
  commit?: string;
  note?: string;
  kept?: string[];
  ignored?: string[];
}

/**
 * Whether the documentation alignment is due: otto's newest commit for the spec is a phase or
 * task commit (work landed since the last alignment, or an alignment was interrupted).
 */
export function docsDue(commits: readonly OttoCommit[]): boolean {
  const newest = commits[0];
  return newest !== undefined && newest.trailer.kind !== "docs";
}

/** `<first phase commit>^`: where the spec's work began, for `git diff <base>...HEAD`. */
export function baseRef(commits: readonly OttoCommit[]): string | undefined {
  const first = commits.filter((c) => c.trailer.kind !== "docs").at(-1);
  return first ? `${first.sha}^` : undefined;
}

/**
 * After the last phase: the primary model updates the documentation only,
 * the secondary reviews the changes in a clean read-only session, the primary applies the review
 * when it asks for changes, and the result is committed on its own (trailer Otto-Docs).
 */
export async function alignDocs(deps: ExecuteDeps, models: Models, base: SpecContext, commits: readonly OttoCommit[]): Promise<DocsReport> {
  const ctx: SpecContext = { ...base, docs: await readDocs(base.paths) };
  const steps: StepRecord[] = [];
  const vars = {
    requirements_md: required(ctx.docs.requirements),
    design_md: required(ctx.docs.design),
    tasks_md: doc(ctx.docs.tasks),
    base_ref: baseRef(commits),
    codebase_summary: doc(ctx.codebaseSummary),
  };
  deps.progress("Docs: primary aligning the documentation");
  const write = await promptPass(
    deps,
    { agent: EXECUTOR, model: models.primary, title: "otto: align documentation" },
    renderPrompt("documentation-alignment", vars, { env: deps.env }),
  );
  const failed = write.error === undefined ? taskFailedReason(write.text) : undefined;
  steps.push(
    step(
      "docs alignment (primary)",
      write,
      write.error !== undefined ? `failed: ${errorLine(write.error)}` : failed !== undefined ? `reported TASK_FAILED: ${failed}` : "done",
    ),
  );
  if (write.error !== undefined || failed !== undefined || cancelled(deps))
    return { steps, note: "not committed: the alignment pass did not finish" };

  deps.progress("Docs: secondary reviewing the documentation changes");
  const report = extractDocument(write.text);
  const diff = await pendingDiff(deps.git, deps.repoRoot, { baseline: baselineOf(deps), include: deps.specInclude ?? [] });
  const artifact = `${report}\n\n## The changes (git diff)\n\n${diff || "(no changes)"}`;
  const context = [`## requirements.md\n\n${vars.requirements_md}`, `## design.md\n\n${vars.design_md}`].join("\n\n");
  const review = await jsonPass(
    deps,
    { agent: REVIEWER, model: models.secondary, title: "otto: review documentation" },
    renderPrompt("review", { artifact_name: "documentation changes", artifact, context }, { env: deps.env }),
    Critique,
  );
  steps.push(
    step("docs review (secondary)", review, review.value ? summarizeCritique(review.value) : `failed: ${errorLine(review.error)}`),
  );
  if (review.value && !isApproval(review.value) && !cancelled(deps)) {
    deps.progress("Docs: primary applying the review");
    const finalize = await promptPass(
      deps,
      { agent: EXECUTOR, model: models.primary, title: "otto: finalize documentation" },
      renderPrompt("documentation-alignment", { ...vars, critique: formatCritique(review.value) }, { env: deps.env }),
    );
    steps.push(step("docs finalize (primary)", finalize, finalize.error !== undefined ? `failed: ${errorLine(finalize.error)}` : "done"));
  }
  if (cancelled(deps)) return { steps, note: "cancelled" };
  await writeStepRecord(
    ctx.paths.history,
    { slug: ctx.slug, name: "docs", heading: "Documentation alignment", at: deps.now(), steps },
    deps.secrets,
  );
  const message = renderCommitMessage({
    slug: ctx.slug,
    trailer: { kind: "docs", slug: ctx.slug },
    subject: "align documentation",
    tasks: [],
    steps: [firstLines(report), "", ...steps.map((s) => `${s.name}: ${s.outcome}`)],
    verify: "none",
  });
  deps.progress("Docs: committing");
  const {
    sha: commit,
    kept,
    ignored,
  } = await commitAll(deps.git, deps.repoRoot, message, {
    baseline: baselineOf(deps),
    include: deps.specInclude ?? [],
    ...guardOf(deps),
    secrets: deps.secrets,
  });
  deps.toast(`Documentation committed: ${commit}`, "success");
  return { steps, commit, ...(kept.length > 0 ? { kept } : {}), ...(ignored.length > 0 ? { ignored } : {}) };
}

function step(name: string, pass: { model: string; sessionID?: string; dialog: string; error?: unknown }, outcome: string): StepRecord {
  return {
    name,
    outcome,
    model: pass.model,
    sessionID: pass.sessionID,
    dialog: pass.dialog,
    warning: pass.error !== undefined ? errorLine(pass.error) : undefined,
  };
}

function firstLines(text: string): string {
  const lines = text.trim().split(/\r?\n/).slice(0, 30).join("\n");
  return lines.length > 3_000 ? `${lines.slice(0, 3_000)}…` : lines;
}
