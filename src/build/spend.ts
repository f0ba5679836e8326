import { Account, addUsage, type Usage } from "../cost/index.ts";
import type { IterationSpend } from "./state.ts";

/**
 * The account the builder session is charged to. One session serves every turn of a loop, but each
 * turn's calls belong to its iteration (and the task it was prompted to work), so they go to the
 * account of the turn in progress, whose parents (the target, the run) get them too. Between turns
 * (a resumed session reconciled at close) they go to the target.
 */
export class TurnAccount extends Account {
  readonly #target: Account;
  #turn: Account;

  constructor(target: Account) {
    super(`${target.name} builder`, { parent: target });
    this.#target = target;
    this.#turn = target;
  }

  /** The account of turn `iteration`: `iteration N`, and under it `task <id>` when it works a task. */
  begin(iteration: number, task?: string): Account {
    const turn = this.#target.child(`iteration ${iteration}`);
    this.#turn = task ? turn.child(`task ${task}`) : turn;
    return turn;
  }

  end(): void {
    this.#turn = this.#target;
  }

  override charge(model: string, delta: Usage): void {
    this.#turn.charge(model, delta);
  }

  /** The ledger's path of a call: the turn's. */
  override get path(): string[] {
    return this.#turn.path;
  }
}

/** The per-turn records with this turn's usage added (a turn cut by a budget and resumed is one record). */
export function recordIteration(list: readonly IterationSpend[] | undefined, entry: IterationSpend): IterationSpend[] {
  const out = [...(list ?? [])];
  const at = out.findIndex((e) => e.iteration === entry.iteration && e.task === entry.task);
  if (at === -1) return [...out, entry];
  const known = out[at];
  if (known) out[at] = { ...known, usage: addUsage(known.usage, entry.usage) };
  return out;
}
