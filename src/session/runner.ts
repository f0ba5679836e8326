import pLimit, { type LimitFunction } from "p-limit";
import type { z } from "zod";
// Direct imports: the plugin builds its runner at load, so this module stays light; the
// session code (child.ts) and the prompt renderer load with the first child session.
import { OttoError } from "../core/errors.ts";
import type { RuntimeBase } from "../core/runtime-types.ts";
import { Account } from "../cost/account.ts";
import type { Meter } from "../cost/meter.ts";
import { currentAccount } from "../cost/scope.ts";
import type { renderPrompt } from "../prompts/index.ts";
import type { ChildContext, ChildOptions, ChildSession, PromptReply } from "./child.ts";
import type { JsonOptions, JsonReply } from "./json.ts";
import { ownSession } from "./permission-guard.ts";
import type { SessionDeps } from "./types.ts";
import type { SessionWrites } from "./writes.ts";
import type { StableSystems } from "./stable-system.ts";

export interface RunnerOptions {
  /**
   * Model turns in flight at once, across every feature of this plugin instance. Default 4: model
   * calls wait on the network, not the CPU, and providers rate-limit long before 4 parallel turns hurt.
   */
  concurrency?: number;
  /** After `session.idle`, how long to wait for the prompt's HTTP reply before reading messages. */
  graceMs?: number;
  /** Told the id of every session the runner creates or attaches (the guard: src/guard). */
  onSession?: (sessionID: string) => void;
  /** Counts every session's model calls (src/cost); without it nothing is counted (unit tests). */
  meter?: Meter;
  /** Why otto stopped a session, when it did (the guard's repeated-tool-call stop): its aborted turn fails with this reason. */
  stopReason?: (sessionID: string) => string | undefined;
  /** What the sessions' tools changed (OpenCode's tool hooks feed it); without it nothing is recorded (unit tests). */
  writes?: SessionWrites;
  /** Where otto's stable prompt heads go for the system-transform hook; without it prompts are sent whole (unit tests). */
  stable?: StableSystems;
}

export interface RunOptions {
  system?: string;
  /** Also return the conversation as markdown (read before the session is deleted). */
  withDialog?: boolean;
}

export type RunReply = PromptReply & { sessionID: string; dialog?: string };

/**
 * The one way otto talks to models: child sessions of the invoking session, each with a role agent
 * and an explicit model. The limit applies to prompts (model turns), not to open sessions, so a
 * feature holding a session open while it prompts another cannot deadlock the pool.
 */
export class SessionRunner {
  readonly #limit: LimitFunction;
  readonly #graceMs: number;
  readonly #onSession: (sessionID: string) => void;
  readonly #meter: Meter | undefined;
  /** Where sessions opened outside any flow's account are charged: every call is counted somewhere. */
  readonly unscoped = new Account("other");
  #code: Promise<{ context: ChildContext; Child: typeof ChildSession }> | undefined;

  constructor(
    readonly deps: SessionDeps,
    private readonly options: RunnerOptions = {},
  ) {
    this.#limit = pLimit(options.concurrency ?? 4);
    this.#graceMs = options.graceMs ?? 2000;
    this.#onSession = options.onSession ?? (() => undefined);
    this.#meter = options.meter;
  }

  /** A runner with its own concurrency limit (a run's parallel tasks) that shares this one's meter and session hooks. */
  withConcurrency(concurrency: number): SessionRunner {
    return new SessionRunner(this.deps, { ...this.options, concurrency });
  }

  /** The meter, for flows that wait for the last counts (a summary) or read a session's spend. */
  get meter(): Meter | undefined {
    return this.#meter;
  }

  /** Where otto's stable prompt heads are noted for the system-transform hook (src/index.ts). */
  get stable(): StableSystems | undefined {
    return this.options.stable;
  }

  /** What watched sessions' tools changed: parallel tasks credit files by it (src/execute/task-files.ts). */
  get writes(): SessionWrites | undefined {
    return this.options.writes;
  }

  /** The child-session code and its shared context, loaded once on first use. */
  #load(): Promise<{ context: ChildContext; Child: typeof ChildSession }> {
    return (this.#code ??= Promise.all([
      import("./child.ts"),
      import("./types.ts"),
      this.deps.render ? undefined : import("../prompts/index.ts"),
      this.options.stable ? import("../prompts/index.ts") : undefined,
    ]).then(([child, types, prompts, heads]) => {
      const systems = this.options.stable;
      const deps = this.deps;
      const context: ChildContext = {
        turn: { client: deps.client, events: deps.events, log: deps.log, clock: deps.clock ?? types.systemClock },
        graceMs: this.#graceMs,
        env: deps.env,
        render: deps.render ?? (prompts as { renderPrompt: typeof renderPrompt }).renderPrompt,
        secrets: deps.secrets ?? (() => []),
        schedule: (task, signal) => this.#schedule(task, signal),
        ...(this.options.stopReason ? { stopReason: this.options.stopReason } : {}),
        ...(this.#meter ? { meter: this.#meter } : {}),
        ...(systems && heads ? { stable: { systems, head: (text: string) => heads.stableHead(text, { env: deps.env }) } } : {}),
      };
      return { context, Child: child.ChildSession };
    }));
  }

  /** Turns running / waiting for a slot. */
  get activeCount(): number {
    return this.#limit.activeCount;
  }

  get pendingCount(): number {
    return this.#limit.pendingCount;
  }

  /** Runs `task` when a slot is free; a signal that fires while waiting rejects at once. */
  #schedule<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (!signal) return this.#limit(task);
    const cancelled = () => new OttoError("session_aborted", "The model call was cancelled before it started.");
    if (signal.aborted) return Promise.reject(cancelled());
    return new Promise<T>((resolve, reject) => {
      // Only while queued: once the turn runs, runTurn handles the signal (and aborts the child).
      const onAbort = () => reject(cancelled());
      signal.addEventListener("abort", onAbort, { once: true });
      this.#limit(() => {
        signal.removeEventListener("abort", onAbort);
        return signal.aborted ? Promise.reject(cancelled()) : task();
      }).then(resolve, reject);
    });
  }

  /** Creates a child session in `directory`. Close it in `finally` (or use `runChild`). */
  async openChild(requested: ChildOptions): Promise<ChildSession> {
    const options = this.#charged(requested);
    if (options.signal?.aborted) throw new OttoError("session_aborted", "The model call was cancelled before it started.");
    const result = await this.deps.client.session.create({
      body: { parentID: options.parentID, title: options.title },
      query: { directory: options.directory },
    });
    const { context, Child } = await this.#load();
    if (result.error !== undefined || !result.data)
      throw (await import("./errors.ts")).errorFromHttp(result.error, "create a session", { model: options.model });
    // Its permission requests are answered by otto when nobody can (permission-guard.ts).
    ownSession(result.data.id, options.directory, options.parentID !== undefined);
    this.#onSession(result.data.id);
    this.#meter?.track(result.data.id, options.account);
    return new Child(context, result.data.id, options);
  }

  /**
   * The options with the session's account (given, the work's, or `unscoped`), which must not have
   * reached its budget, and a signal that also fires when it does.
   */
  #charged(options: ChildOptions): ChildOptions & { account: Account } {
    const account = options.account ?? currentAccount() ?? this.unscoped;
    account.check();
    const signal = options.signal ? AbortSignal.any([options.signal, account.signal]) : account.signal;
    return { ...options, account, signal };
  }

  /** A child for a session that already exists (a resumed build loop's builder); no request is made. */
  async attachChild(id: string, requested: ChildOptions): Promise<ChildSession> {
    const options = this.#charged(requested);
    this.#meter?.track(id, options.account);
    ownSession(id, options.directory, options.parentID !== undefined);
    const { context, Child } = await this.#load();
    this.#onSession(id);
    return new Child(context, id, options);
  }

  /** Opens a child, sends one prompt, collects the reply, closes the child. */
  async runChild(options: ChildOptions, prompt: string, run: RunOptions = {}): Promise<RunReply> {
    const child = await this.openChild(options);
    try {
      const reply = await child.prompt(prompt, { system: run.system });
      const dialog = run.withDialog ? await child.dialog() : undefined;
      return { ...reply, sessionID: child.id, dialog };
    } finally {
      await child.close();
    }
  }

  /** Like `runChild`, for a BEGIN_JSON envelope validated by `schema` (retries in the same session). */
  async runChildJson<S extends z.ZodType>(
    options: ChildOptions,
    prompt: string,
    schema: S,
    json: JsonOptions = {},
  ): Promise<JsonReply<z.output<S>>> {
    const child = await this.openChild(options);
    try {
      return await child.promptJson(prompt, schema, json);
    } finally {
      await child.close();
    }
  }
}

/** The runner for one plugin instance: its client, event bus, log and environment. */
export function createSessionRunner(
  runtime: Pick<RuntimeBase, "client" | "events" | "log" | "env"> & Partial<Pick<RuntimeBase, "secrets">>,
  options: RunnerOptions = {},
): SessionRunner {
  const known = runtime.secrets;
  return new SessionRunner(
    { client: runtime.client, events: runtime.events, log: runtime.log, env: runtime.env, secrets: () => known?.values() ?? [] },
    options,
  );
}
