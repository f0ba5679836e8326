import { OttoError, formatError, isOttoError } from "../core/index.ts";
import { formatModel, type ChildOptions, type ModelRef, type SessionRunner } from "../session/index.ts";
import { changedSubstantially, lineChangeRatio } from "./changed.ts";
import { Critique, isApproval, summarizeCritique } from "./critique.ts";

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
  reviewPrompt(artifact: string): string;
  refinePrompt(artifact: string, critique: Critique): string;
  /** The artifact inside a generator/refiner reply, e.g. `extractDocument`. */
  extract(text: string): string;
  /** Review+refine cycles at most (the design's "max 2 cycles"). */
  maxCycles?: number;
  timeoutMs: number;
  signal?: AbortSignal;
  agents?: Partial<ReviewAgents>;
  onProgress?(message: string): void;
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
  const child = (role: keyof ReviewAgents, model: ModelRef, title: string): ChildOptions => ({
    parentID: opts.parentID,
    directory: opts.directory,
    agent: agents[role],
    model,
    title: `otto: ${title} ${opts.artifact}`,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
  });
  const passes: ReviewPass[] = [];
  const critiques: Critique[] = [];
  const warnings: string[] = [];
  const progress = (pass: number, total: number, text: string) => opts.onProgress?.(`pass ${pass}/${total}: ${text}`);
  /** Cancellation stops the pipeline; any other failure of a later pass is survived. */
  const survivable = (error: unknown) => !opts.signal?.aborted && !(isOttoError(error) && error.code === "session_aborted");

  progress(1, 3, `primary generating ${opts.artifact}`);
  const generated = await opts.runner.runChild(child("generator", opts.primary, "generate"), opts.generate.prompt, {
    system: opts.generate.system,
  });
  let current = opts.extract(generated.text);
  if (!current.trim()) {
    throw new OttoError(
      "empty_artifact",
      `The primary model (${formatModel(opts.primary)}) returned no ${opts.artifact} (session ${generated.sessionID}).`,
      "Run the command again; if it keeps happening, try another primary model in otto.jsonc.",
    );
  }
  passes.push({ role: "generate", model: formatModel(opts.primary), sessionID: generated.sessionID, summary: `generated ${opts.artifact}` });

  for (let cycle = 1; cycle <= maxCycles; cycle++) {
    const total = 1 + 2 * cycle;
    progress(total - 1, total, "secondary reviewing (clean session)");
    let critique: Critique;
    try {
      const review = await opts.runner.runChildJson(child("reviewer", opts.secondary, "review"), opts.reviewPrompt(current), Critique);
      critique = review.value;
      critiques.push(critique);
      passes.push({ role: "review", model: formatModel(opts.secondary), sessionID: review.sessionID, summary: summarizeCritique(critique) });
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
    try {
      const reply = await opts.runner.runChild(child("refiner", opts.primary, "refine"), opts.refinePrompt(current, critique));
      refined = opts.extract(reply.text);
      sessionID = reply.sessionID;
      if (!refined.trim()) throw new Error("the refinement was empty");
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
      summary: `incorporated feedback (${Math.round(ratio * 100)}% of lines changed)`,
    });
    current = refined;
    if (!substantial) break;
  }
  return { final: current, passes, critiques, warnings };
}
