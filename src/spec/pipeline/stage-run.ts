import fs from "node:fs";
import { OttoError, errorText } from "../../core/index.ts";
import { Account, currentAccount, isBudgetStop, withAccount, type Usage } from "../../cost/index.ts";
import type { SpecDeps } from "./deps.ts";
import type { VerbResult } from "./document-stage.ts";
import { renderStopReport } from "./render-output.ts";
import type { StageSpend } from "./spend.ts";

interface Pass {
  label: string;
  model: string;
  account: Account;
}

/**
 * One run of a spec stage and what it spends: an account `stage <name>` (labels repo, spec, run)
 * with a child per pass (write, review per reviewer model, refine, each question, the ad-hoc run),
 * so the ledger and the stage's own report see the same figures. Inside another flow's account (a
 * build plan) it is that account's child: the outer budget counts the stage, and the outer run's
 * labels are kept.
 */
export class StageRun {
  readonly account: Account;
  readonly #passes: Pass[] = [];
  /** The history record written for this run (the last one). */
  history: string | undefined;
  /** This stage's own budget stop (not an outer flow's). */
  #ownStop: OttoError | undefined;

  constructor(
    deps: Pick<SpecDeps, "repoRoot" | "budget">,
    /** "requirements", "task generate", "questions", "run" … */
    readonly name: string,
    readonly slug: string,
    /** The command that runs the stage again, e.g. "/otto-spec research --spec demo". */
    readonly command: string,
    started: Date = new Date(),
  ) {
    const parent = currentAccount();
    const budget = deps.budget
      ? {
          ...deps.budget,
          fix: `Raise the budget and run the stage again: ${command} --budget <usd> (or --max-tokens <n>, or limits.run_usd in otto.jsonc).`,
        }
      : undefined;
    this.account = new Account(`stage ${name}`, {
      ...(parent ? { parent } : {}),
      labels: { repo: parent?.labels.repo ?? deps.repoRoot, spec: slug, run: parent?.labels.run ?? started.toISOString() },
      ...(budget ? { budget, onStop: (stop: OttoError) => void (this.#ownStop ??= stop) } : {}),
    });
  }

  /** The account of the next pass, e.g. pass("review", "mock/m2") (its account is `review mock/m2`). */
  pass(label: string, model = ""): Account {
    const account = this.account.child(label === "review" && model ? `review ${model}` : label);
    this.#passes.push({ label, model, account });
    return account;
  }

  get usage(): Usage {
    return this.account.usage;
  }

  /** The passes so far, each with what it spent (exact once its session is closed). */
  spend(): StageSpend {
    return {
      usage: this.account.usage,
      byModel: Object.fromEntries(this.account.byModel),
      passes: this.#passes.map((p) => ({ label: p.label, model: p.model, usage: p.account.usage })),
    };
  }

  /** Whether this stage's own budget stopped it (then it notifies; an outer flow notifies for its own). */
  get stoppedHere(): boolean {
    return this.#ownStop !== undefined;
  }
}

/** A stage stopped by a budget: an error for callers chaining stages, a report for the command. */
export class StageStopped extends OttoError {
  constructor(
    readonly result: VerbResult,
    stop: OttoError,
  ) {
    super("budget_exceeded", stop.message, stop.fix, { cause: stop });
  }
}

/** "failed: …", or "stopped: Budget reached …" for a budget stop: a history record's outcome. */
export function outcomeOf(error: unknown): string {
  return `${isBudgetStop(error) ? "stopped" : "failed"}: ${errorText(error).replace(/\nNext step: [\s\S]*$/, "")}`;
}

export interface StopInfo {
  /** What the stage did not do, e.g. ["research.md was not written"]. */
  undone: string[];
  /** Repository-relative path, for the output. */
  rel: (file: string) => string;
  /** More lines for the report (what was checked or restored after the stop). */
  notes?: string[];
  /** What came of each pass, in order (default: done, and the last one stopped). */
  results?: string[];
}

/**
 * Runs a stage's work under its account. A budget stop (its own or an outer flow's) ends it with
 * a report: spent and limit, what was left undone, the passes with their spend; one notification
 * when it was this stage's budget. The report travels in a StageStopped (code budget_exceeded), so
 * a caller chaining stages stops too.
 */
export async function runStage(
  deps: SpecDeps,
  run: StageRun,
  work: () => Promise<VerbResult>,
  stopped: () => StopInfo,
): Promise<VerbResult> {
  try {
    return await withAccount(run.account, work);
  } catch (error) {
    if (error instanceof StageStopped || !isBudgetStop(error)) throw error;
    await deps.runner.meter?.flush();
    const info = stopped();
    const history = run.history && fs.existsSync(run.history) ? info.rel(run.history) : undefined;
    const result = renderStopReport({
      stage: run.name,
      slug: run.slug,
      stop: error,
      spend: run.spend(),
      undone: info.undone,
      notes: info.notes ?? [],
      history,
      ...(info.results ? { results: info.results } : {}),
    });
    if (run.stoppedHere) {
      await deps.notify?.({
        kind: "human_needed",
        title: `otto-spec ${run.name} (${run.slug}) stopped: budget reached`,
        text: [error.message, ...info.undone.map((u) => `Not done: ${u}`)].join("\n"),
      });
    }
    throw new StageStopped(result, error);
  }
}
