import { OttoError } from "../core/errors.ts";
import { addUsage, formatCost, formatTokens, formatUsd, totalTokens, ZERO_USAGE, type Usage } from "./usage.ts";

/** A run's limits; either may be unset. A resumed run gets a new budget: only its own spend counts. */
export interface Budget {
  usd?: number;
  tokens?: number;
  /** How to go on once it is reached, e.g. "Resume with /otto-spec execute --budget 4". */
  fix?: string;
}

/** What a piece of work is, for the ledger and the report (`/otto-cost --by spec|pr`). */
export interface AccountLabels {
  /** The repository (or checkout) the work is for. */
  repo?: string;
  /** One run of a flow (its start, ISO): tells two runs of one spec apart. */
  run?: string;
  spec?: string;
  pr?: string;
  crew?: string;
  build?: string;
  review?: string;
  /** Rules learning (`learn`): /otto-cost shows its spend on a line of its own. */
  rules?: string;
}

/** Why work stopped: the budget that was reached (code `budget_exceeded`). */
export function isBudgetStop(error: unknown): error is OttoError {
  return error instanceof OttoError && error.code === "budget_exceeded";
}

/**
 * The spend of one piece of work (a run, a phase, a task, an attempt, a fix, a crew agent) and of
 * everything under it: every charge is added to the account and to each of its parents. An account
 * with a budget stops when its spend reaches it: its signal aborts, which aborts the sessions in
 * flight under it, and `check` refuses new model calls, until the work is resumed under a new one.
 */
export class Account {
  readonly #controller = new AbortController();
  readonly signal: AbortSignal;
  readonly labels: AccountLabels;
  #usage: Usage = ZERO_USAGE;
  readonly #byModel = new Map<string, Usage>();
  #stop: OttoError | undefined;
  #unpricedWarned = false;

  constructor(
    readonly name: string,
    options: {
      labels?: AccountLabels;
      budget?: Budget;
      parent?: Account;
      onStop?: (stop: OttoError, account: Account) => void;
      onUnpricedBudget?: (account: Account) => void;
    } = {},
  ) {
    this.parent = options.parent;
    this.budget = options.budget && (options.budget.usd !== undefined || options.budget.tokens !== undefined) ? options.budget : undefined;
    this.labels = { ...options.parent?.labels, ...options.labels };
    this.#onStop = options.onStop ?? (options.parent ? options.parent.#onStop : undefined);
    this.#onUnpricedBudget = options.onUnpricedBudget ?? (options.parent ? options.parent.#onUnpricedBudget : undefined);
    this.signal = options.parent ? AbortSignal.any([options.parent.signal, this.#controller.signal]) : this.#controller.signal;
  }

  readonly parent: Account | undefined;
  readonly budget: Budget | undefined;
  readonly #onStop: ((stop: OttoError, account: Account) => void) | undefined;
  readonly #onUnpricedBudget: ((account: Account) => void) | undefined;

  /** A part of this work (a phase of a run, an attempt of a task): its spend is this one's too. */
  child(name: string, options: { labels?: AccountLabels; budget?: Budget } = {}): Account {
    return new Account(name, { ...options, parent: this });
  }

  get usage(): Usage {
    return this.#usage;
  }

  /** Spend per model ("provider/model"). */
  get byModel(): ReadonlyMap<string, Usage> {
    return this.#byModel;
  }

  /** The names from the outermost account down to this one. */
  get path(): string[] {
    return this.parent ? [...this.parent.path, this.name] : [this.name];
  }

  /** Why no model call may start here any more: this account's budget or a parent's was reached. */
  get stopped(): OttoError | undefined {
    return this.#stop ?? this.parent?.stopped;
  }

  /** Throws the budget stop, if any: called before every new model call. */
  check(): void {
    const stop = this.stopped;
    if (stop) throw stop;
  }

  /** Adds a model call's (growth of) usage here and to every parent; stops an account whose budget it reaches. */
  charge(model: string, delta: Usage): void {
    this.#add(model, delta);
    this.parent?.charge(model, delta);
  }

  #add(model: string, delta: Usage): void {
    this.#usage = addUsage(this.#usage, delta);
    this.#byModel.set(model, addUsage(this.#byModel.get(model) ?? ZERO_USAGE, delta));
    const budget = this.budget;
    if (!budget || this.#stop) return;
    if (budget.usd !== undefined && delta.unpriced > 0 && !this.#unpricedWarned) {
      this.#unpricedWarned = true;
      this.#onUnpricedBudget?.(this);
    }
    const overTokens = budget.tokens !== undefined && totalTokens(this.#usage) >= budget.tokens;
    const overUsd = budget.usd !== undefined && this.#usage.usd >= budget.usd;
    if (!overTokens && !overUsd) return;
    this.#stop = new OttoError(
      "budget_exceeded",
      `Budget reached: ${this.spentLine()} (${this.name}).`,
      budget.fix ??
        "Raise the budget (--budget, --max-tokens or limits.* in otto.jsonc) and run it again: the work resumes where it stopped.",
    );
    this.#controller.abort(this.#stop);
    this.#onStop?.(this.#stop, this);
  }

  /** "spent $1.02 of $1.00", "spent 210k of 200k tokens", or the spend alone without a budget. */
  spentLine(): string {
    const usage = this.#usage;
    const budget = this.budget;
    const parts: string[] = [];
    if (budget?.usd !== undefined) parts.push(`spent ${formatCost(usage)} of ${formatUsd(budget.usd)}`);
    if (budget?.tokens !== undefined) parts.push(`spent ${formatTokens(totalTokens(usage))} of ${formatTokens(budget.tokens)} tokens`);
    return parts.length > 0 ? parts.join(", ") : `spent ${formatTokens(totalTokens(usage))} tokens, ${formatCost(usage)}`;
  }
}
