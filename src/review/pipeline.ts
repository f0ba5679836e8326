import { formatError, isOttoError } from "../core/index.ts";
import type { Account } from "../cost/index.ts";
import { formatModel, type ChildOptions, type ModelRef, type SessionRunner } from "../session/index.ts";
import { changedSubstantially, lineChangeRatio } from "./changed.ts";
import { Critique, isApproval, summarizeCritique } from "./critique.ts";
import { generateChecked, inChild, type Acceptance, type PassDialog } from "./generate.ts";

/**
 * Agents of the three roles. The generator and refiner must read the code base but must not edit
 * it (the artifact is their reply, otto writes the file), so by default every role uses the
 * read-only `otto-reviewer` agent; the reviewer always runs in a clean session on the secondary model.
 */
export interface ReviewAgents {
  generator: string;
  reviewer: string;
  refiner: string;
}

export const DEFAULT_REVIEW_AGENTS: ReviewAgents = { generator: "otto-reviewer", reviewer: "otto-reviewer", refiner: "otto-reviewer" };

export interface ReviewOptions {
  runner: SessionRunner;
  directory: string;
  /** The invoking session, so the children show under it. */
  parentID?: string;
  primary: ModelRef;
  secondary: ModelRef;
  /** What is reviewed, for progress and titles, e.g. "requirements.md". */
  artifact: string;
  generate: { prompt: string; system?: string };
  /** System text for every pass (writer, critic, refiner): the team rules in scope (docs/rules.md). */
  system?: string;
  reviewPrompt(artifact: string): string;
  refinePrompt(artifact: string, critique: Critique): string;
  /** The artifact inside a generator/refiner reply, e.g. `extractDocument`. */
  extract: (text: string) => string;
  /**
   * Checks a generated or refined artifact in code (and may normalise it); problems go back to the
   * same session through `repairPrompt`, up to `maxRepairs` times. A generator that never passes
   * fails the pipeline (`invalid_artifact`); a refiner that never passes keeps the last good version.
   */
  accept?: (artifact: string) => Acceptance;
  repairPrompt?: (problems: string) => string;
  maxRepairs?: number;
  /** Receives each pass's conversation (redacted markdown) before its session is deleted. */
  onDialog?: (dialog: PassDialog) => void;
  /** Review+refine cycles at most. */
  maxCycles?: number;
  timeoutMs: number;
  signal?: AbortSignal;
  agents?: Partial<ReviewAgents>;
  onProgress?(message: string): void;
  /**
   * The account each pass's session is charged to (called once per pass, in order, before it
   * opens): a caller's spend per pass. Default: the work's account (withAccount).
   */
  account?: (role: ReviewPass["role"], model: ModelRef) => Account;
}

export interface ReviewPass {
  role: "generate" | "review" | "refine";
  model: string;
  sessionID?: string;
  summary: string;
}

export interface ReviewResult {
  final: string;
  passes: ReviewPass[];
  critiques: Critique[];
  /** Reviewer or refiner failures that were survived; the artifact is the last good version. */
  warnings: string[];
}

/**
 * The multi-model review: the primary generates, the secondary critiques in a clean session, the
 * primary refines in a clean session; another critique+refine cycle only when the refinement
 * changed the artifact substantially. A failing reviewer or refiner never loses the artifact.
 */
export async function reviewArtifact(opts: ReviewOptions): Promise<ReviewResult> {
  const agents = { ...DEFAULT_REVIEW_AGENTS, ...opts.agents };
  const maxCycles = Math.max(1, opts.maxCycles ?? 2);
  const roleOf: Record<keyof ReviewAgents, ReviewPass["role"]> = { generator: "generate", reviewer: "review", refiner: "refine" };
  const child = (role: keyof ReviewAgents, model: ModelRef, title: string): ChildOptions => ({
    ...(opts.account ? { account: opts.account(roleOf[role], model) } : {}),
    parentID: opts.parentID,
    directory: opts.directory,
    agent: agents[role],
    model,
    title: `otto: ${title} ${opts.artifact}`,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    ...(opts.system ? { system: opts.system } : {}),
  });
  const passes: ReviewPass[] = [];
  const critiques: Critique[] = [];
  const warnings: string[] = [];
  const progress = (pass: number, total: number, text: string) => opts.onProgress?.(`pass ${pass}/${total}: ${text}`);
  /** Cancellation and a reached budget stop the pipeline; any other failure of a later pass is survived. */
  const survivable = (error: unknown) =>
    !opts.signal?.aborted && !(isOttoError(error) && (error.code === "session_aborted" || error.code === "budget_exceeded"));

  const checked = {
    artifact: opts.artifact,
    extract: opts.extract,
    accept: opts.accept,
    repairPrompt: opts.repairPrompt,
    maxRepairs: opts.maxRepairs,
    onDialog: opts.onDialog,
  };
  const repaired = (attempts: number) => (attempts > 1 ? ` (valid after ${attempts} answers)` : "");

  progress(1, 3, `primary generating ${opts.artifact}`);
  const generated = await generateChecked(opts.runner, child("generator", opts.primary, "generate"), "generate", opts.generate.prompt, {
    ...checked,
    system: opts.generate.system,
  });
  let current = generated.artifact;
  passes.push({
    role: "generate",
    model: formatModel(opts.primary),
    sessionID: generated.sessionID,
    summary: `generated ${opts.artifact}${repaired(generated.attempts)}`,
  });

  for (let cycle = 1; cycle <= maxCycles; cycle++) {
    const total = 1 + 2 * cycle;
    progress(total - 1, total, "secondary reviewing (clean session)");
    let critique: Critique;
    try {
      const prompt = opts.reviewPrompt(current);
      const review = await inChild(
        opts.runner,
        child("reviewer", opts.secondary, "review"),
        "review",
        (c) => c.promptJson(prompt, Critique),
        opts.onDialog,
      );
      critique = review.value;
      critiques.push(critique);
      passes.push({
        role: "review",
        model: formatModel(opts.secondary),
        sessionID: review.sessionID,
        summary: summarizeCritique(critique),
      });
    } catch (error) {
      if (!survivable(error)) throw error;
      warnings.push(`The review of ${opts.artifact} failed, so it was kept as it was: ${formatError(error)}`);
      passes.push({ role: "review", model: formatModel(opts.secondary), summary: "failed" });
      break;
    }
    if (isApproval(critique)) break;

    progress(total, total, "primary incorporating feedback (clean session)");
    let refined: string;
    let sessionID: string;
    let attempts: number;
    try {
      const reply = await generateChecked(
        opts.runner,
        child("refiner", opts.primary, "refine"),
        "refine",
        opts.refinePrompt(current, critique),
        checked,
      );
      ({ artifact: refined, sessionID, attempts } = reply);
    } catch (error) {
      if (!survivable(error)) throw error;
      warnings.push(`Incorporating the review of ${opts.artifact} failed, so the previous version was kept: ${formatError(error)}`);
      passes.push({ role: "refine", model: formatModel(opts.primary), summary: "failed" });
      break;
    }
    const ratio = lineChangeRatio(current, refined);
    const substantial = changedSubstantially(current, refined);
    passes.push({
      role: "refine",
      model: formatModel(opts.primary),
      sessionID,
      summary: `incorporated feedback (${Math.round(ratio * 100)}% of lines changed)${repaired(attempts)}`,
    });
    current = refined;
    if (!substantial) break;
  }
  return { final: current, passes, critiques, warnings };
}
