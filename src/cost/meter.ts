import type { Event } from "@opencode-ai/sdk";
import type { Logger } from "../core/log.ts";
import type { Account } from "./account.ts";
import type { LedgerEntry } from "./ledger.ts";
import { messageUsage, subtractUsage, sumUsage, ZERO_USAGE, type Usage } from "./usage.ts";

/** What the meter reads of an assistant message (OpenCode's AssistantMessage). */
export interface MeteredMessage {
  id: string;
  sessionID: string;
  role: string;
  providerID?: string;
  modelID?: string;
  mode?: string;
  cost?: number;
  tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read?: number; write?: number } };
  time: { created: number; completed?: number };
  error?: { name?: string };
}

export interface MeterDeps {
  /** Whether OpenCode has a price for the model (its config's `cost`); asked once per model. */
  priced(providerID: string, modelID: string): Promise<boolean>;
  /** Receives each finished call once (src/cost/ledger.ts). */
  record(entries: LedgerEntry[]): Promise<void>;
  log: Logger;
}

interface Metered {
  account: Account;
  /** What each message of the session has been charged so far. */
  charged: Map<string, Usage>;
  /** Messages already in the ledger. */
  recorded: Set<string>;
  /** Messages the session held before it was tracked (a resumed session's earlier work): never charged again. */
  earlier: Set<string>;
}

/**
 * Charges the model calls of otto's sessions to their accounts. Each assistant message's usage
 * arrives in `message.updated` events as it streams (a budget can stop a turn in flight); the
 * growth since the last event is charged. When the session ends, its messages are read once more
 * and reconciled, so the sums are exact even if an event was missed. Sessions a metered session
 * starts (a subagent) are charged to the same account.
 */
export class Meter {
  readonly #sessions = new Map<string, Metered>();
  readonly #prices = new Map<string, Promise<boolean>>();
  /** One queue: a message's updates are charged in the order they came. */
  #queue: Promise<void> = Promise.resolve();

  constructor(private readonly deps: MeterDeps) {}

  /**
   * Charges the session's calls to `account` from now on. `earlier`: ids of messages it already
   * holds (a session reattached by a resumed run), charged and recorded by the run that made them.
   */
  track(sessionID: string, account: Account, earlier: Iterable<string> = []): void {
    if (!this.#sessions.has(sessionID))
      this.#sessions.set(sessionID, { account, charged: new Map(), recorded: new Set(), earlier: new Set(earlier) });
  }

  accountOf(sessionID: string): Account | undefined {
    return this.#sessions.get(sessionID)?.account;
  }

  onEvent(event: Event): void {
    if (event.type === "session.created") {
      const { id, parentID } = event.properties.info;
      const parent = parentID ? this.#sessions.get(parentID) : undefined;
      if (parent) this.track(id, parent.account);
    } else if (event.type === "message.updated" && event.properties.info.role === "assistant") {
      const info = event.properties.info;
      if (this.#sessions.has(info.sessionID)) this.#enqueue(() => this.#apply(info));
    }
  }

  /** Reconciles the session with its messages (read before it is deleted) and stops metering it. */
  async settle(sessionID: string, messages: readonly { info: MeteredMessage }[] | undefined): Promise<Usage> {
    for (const { info } of messages ?? [])
      if (info.role === "assistant" && info.sessionID === sessionID) this.#enqueue(() => this.#apply(info, true));
    await this.#queue;
    const metered = this.#sessions.get(sessionID);
    this.#sessions.delete(sessionID);
    return sumUsage(metered?.charged.values() ?? []);
  }

  /**
   * Before each model call of a metered session (OpenCode's `chat.params`): once every update so
   * far is charged, a session whose account is stopped makes no call. A budget's abort races
   * OpenCode's next step, which starts as soon as a tool call returns; this holds that step.
   */
  async beforeCall(sessionID: string): Promise<void> {
    if (!this.#sessions.has(sessionID)) return;
    await this.#queue;
    this.#sessions.get(sessionID)?.account.check();
  }

  /** Waits until every update received so far is charged (tests, summaries). */
  async flush(): Promise<void> {
    await this.#queue;
  }

  #enqueue(work: () => Promise<void>): void {
    this.#queue = this.#queue
      .then(work)
      .catch((error: unknown) => this.deps.log.log("warn", "otto: could not count a model call", { error: String(error) }));
  }

  #price(providerID: string, modelID: string): Promise<boolean> {
    const key = `${providerID}/${modelID}`;
    let known = this.#prices.get(key);
    if (!known) {
      known = this.deps.priced(providerID, modelID).catch(() => false);
      this.#prices.set(key, known);
    }
    return known;
  }

  /** `final`: the session is ending, so a call it never finished (aborted by a budget or a timeout) is recorded as it stands. */
  async #apply(info: MeteredMessage, final = false): Promise<void> {
    const metered = this.#sessions.get(info.sessionID);
    if (!metered || metered.earlier.has(info.id)) return;
    // A step aborted before its call reported anything (a budget's or a kill's abort, often before
    // the request left), or refused by beforeCall: no usage to charge, and no evidence of a call.
    const cut = info.error?.name === "MessageAbortedError" || (info.error !== undefined && metered.account.stopped !== undefined);
    const nothing = isZero(messageUsage(info, true), "requests");
    if (nothing && cut) return;
    // A step that has reported nothing yet is charged once it reports usage or finishes.
    if (nothing && info.time.completed === undefined && !final) return;
    const model = `${info.providerID ?? "unknown"}/${info.modelID ?? "unknown"}`;
    // A message with a cost has a price, whatever the config said when it was read.
    const priced = (info.cost ?? 0) > 0 || (await this.#price(info.providerID ?? "", info.modelID ?? ""));
    const usage = messageUsage(info, priced);
    const before = metered.charged.get(info.id) ?? { ...ZERO_USAGE };
    const delta = subtractUsage(usage, before);
    if (!isZero(delta)) {
      metered.charged.set(info.id, usage);
      metered.account.charge(model, delta);
    }
    if ((info.time.completed !== undefined || final) && !metered.recorded.has(info.id)) {
      metered.recorded.add(info.id);
      const account = metered.account;
      await this.deps.record([
        {
          at: new Date(info.time.completed ?? info.time.created).toISOString(),
          session: info.sessionID,
          message: info.id,
          model,
          ...(info.mode ? { agent: info.mode } : {}),
          path: account.path,
          labels: account.labels,
          usage,
        },
      ]);
    }
  }
}

function isZero(usage: Usage, except?: keyof Usage): boolean {
  return Object.entries(usage).every(([key, value]) => key === except || value === 0);
}
