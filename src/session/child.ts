import type { Part, TextPart } from "@opencode-ai/sdk";
import type { z } from "zod";
import { OttoError, redact, type Env } from "../core/index.ts";
import type { Account, Meter } from "../cost/index.ts";
import { renderDialog, type DialogOptions } from "./dialog.ts";
import { describeError, errorFromHttp, errorFromProvider } from "./errors.ts";
import { promptJson, type JsonOptions, type JsonReply } from "./json.ts";
import { formatModel, sameModel, type ModelRef } from "./model.ts";
import type { StableSystems } from "./stable-system.ts";
import { runTurn, type TurnDeps } from "./turn.ts";
import type { PromptRenderer, TurnReply } from "./types.ts";

export interface ChildOptions {
  /** The invoking session (the tool's `ctx.sessionID`), so the TUI shows the child under it. */
  parentID?: string;
  directory: string;
  /** Role agent: `otto-reviewer` (read-only), `otto-executor` (edits), … */
  agent: string;
  model: ModelRef;
  title: string;
  /** Limit for each prompt (one model turn), not for the whole session. */
  timeoutMs: number;
  /** Keep the session after close (ad-hoc runs the user may continue). */
  keep?: boolean;
  /** The tool's `ctx.abort`: aborting it aborts the running turn. */
  signal?: AbortSignal;
  /**
   * Where the session's model calls are charged (src/cost). Default: the account of the work in
   * progress (`withAccount`), else the runner's own. Its budget stops the session's turns.
   */
  account?: Account;
  /**
   * Text sent as `system` with every prompt of the session, after otto's stable head: the team's
   * rules in scope (src/rules/apply.ts), the same for each turn, so they stay in the system message
   * whatever the prompt.
   */
  system?: string;
}

export interface PromptReply extends TurnReply {
  /** The assistant's text parts, joined. */
  text: string;
}

/** What a child session needs from its runner (kept narrow to avoid an import cycle). */
export interface ChildContext {
  turn: TurnDeps;
  graceMs: number;
  env?: Env;
  render: PromptRenderer;
  /** The runtime's known secrets: every dialog is redacted with them. */
  secrets?: () => readonly string[];
  schedule<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Counts the session's model calls; reconciled with its messages when it closes. */
  meter?: Meter;
  /** Why otto stopped a session (RunnerOptions.stopReason). */
  stopReason?: (sessionID: string) => string | undefined;
  /** Otto's stable text where a prompt cache reads it (src/session/stable-system.ts). */
  stable?: { systems: StableSystems; head(text: string): string | undefined };
}

/** The assistant's own text (synthetic and ignored parts are OpenCode's, not the model's). */
export function replyText(parts: readonly Part[]): string {
  return parts
    .filter((part): part is TextPart => part.type === "text" && !part.ignored && !part.synthetic)
    .map((part) => part.text)
    .join("\n\n")
    .trim();
}

/** One OpenCode child session with a fixed agent and model. Create it with `SessionRunner.openChild`. */
export class ChildSession {
  #closed = false;
  #deleted = false;
  /** The stable head of the session's first prompt, sent as `system` with every prompt of the session. */
  #head: string | undefined;
  #prompted = false;

  constructor(
    private readonly context: ChildContext,
    readonly id: string,
    readonly options: ChildOptions,
  ) {}

  get model(): ModelRef {
    return this.options.model;
  }

  /** Sends one prompt and returns the reply, verified to come from the requested model and agent. */
  async prompt(text: string, opts: { system?: string } = {}): Promise<PromptReply> {
    if (this.#closed) throw new OttoError("session_closed", `Session ${this.id} is already closed.`);
    const { options, context } = this;
    options.account?.check();
    const ctx = { sessionID: this.id, model: options.model };
    const system = [options.system, opts.system].filter((part): part is string => Boolean(part)).join("\n\n") || undefined;
    const sent = this.#split(text, system);
    const body = { agent: options.agent, model: options.model, system: sent.system, parts: [{ type: "text" as const, text: sent.text }] };
    const reply = await context
      .schedule(
        () =>
          runTurn(context.turn, {
            ...ctx,
            directory: options.directory,
            body,
            timeoutMs: options.timeoutMs,
            graceMs: context.graceMs,
            signal: options.signal,
          }),
        options.signal,
      )
      .catch((error: unknown) => {
        // A turn aborted because its budget was reached fails with the budget's reason.
        throw options.account?.stopped ?? stoppedError(error, this.id, context);
      });
    // A step refused because the budget was reached (the meter's check before each call) ends the turn with an error.
    if (reply.info.error) throw options.account?.stopped ?? stoppedError(errorFromProvider(reply.info.error, ctx), this.id, context);
    verifyModel(reply, options, this.id);
    return { ...reply, text: replyText(reply.parts) };
  }

  /**
   * Every otto session gets the same system layout (src/session/stable-system.ts): the first
   * prompt's stable head (otto's rules and output contract), when it has one, goes as `system`, the
   * rest as the message; later prompts of the session send the same head, so their prefix stays
   * the same. A session without a head is noted too: its system message is still split at the
   * agent's prompt, so every otto session's first system part is the same bytes.
   */
  #split(text: string, system: string | undefined): { text: string; system: string | undefined } {
    const stable = this.context.stable;
    if (!stable) return { text, system };
    if (!this.#prompted) {
      this.#head = stable.head(text);
      if (this.#head !== undefined) text = text.slice(this.#head.length).trimStart();
    }
    this.#prompted = true;
    const head = this.#head ?? "";
    const joined = head && system ? `${head}\n\n${system}` : head || system;
    stable.systems.note(this.id, { agent: this.options.agent, stable: head, system: joined ?? "" });
    return { text, system: joined };
  }

  /** Prompts for a BEGIN_JSON envelope, retrying in this session when it does not validate. */
  promptJson<S extends z.ZodType>(text: string, schema: S, opts: JsonOptions = {}): Promise<JsonReply<z.output<S>>> {
    return promptJson(this, text, schema, opts, { render: this.context.render, env: this.context.env });
  }

  /** The whole conversation as redacted markdown (call before close: close deletes the session). */
  async dialog(options: DialogOptions = {}): Promise<string> {
    const result = await this.context.turn.client.session.messages({
      path: { id: this.id },
      query: { directory: this.options.directory },
    });
    if (result.error !== undefined || !result.data) {
      throw errorFromHttp(result.error, "read the session's messages", { sessionID: this.id });
    }
    return renderDialog(result.data, { ...options, secrets: [...(options.secrets ?? []), ...(this.context.secrets?.() ?? [])] });
  }

  async abort(): Promise<void> {
    const result = await this.context.turn.client.session.abort({
      path: { id: this.id },
      query: { directory: this.options.directory },
    });
    if (result.error !== undefined) throw errorFromHttp(result.error, "abort the session", { sessionID: this.id });
  }

  /** Whether close deleted the session (a caller keeping a record of open sessions needs to know). */
  get deleted(): boolean {
    return this.#deleted;
  }

  /** Deletes the session unless `keep`. Never throws: a failed cleanup must not fail finished work. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.context.stable?.systems.forget(this.id);
    const { client, log } = this.context.turn;
    await this.#settle();
    if (this.options.keep) return;
    try {
      const result = await client.session.delete({ path: { id: this.id }, query: { directory: this.options.directory } });
      if (result.error === undefined) this.#deleted = true;
      else log.log("warn", `could not delete session ${this.id}`, { error: redact(describeError(result.error)) });
    } catch (error) {
      log.log("warn", `could not delete session ${this.id}`, { error: redact(describeError(error)) });
    }
  }

  /** Charges the session's calls exactly (its messages, read before the session goes); never throws. */
  async #settle(): Promise<void> {
    const meter = this.context.meter;
    if (!meter) return;
    try {
      const result = await this.context.turn.client.session.messages({
        path: { id: this.id },
        query: { directory: this.options.directory },
      });
      await meter.settle(this.id, result.data);
    } catch (error) {
      await meter.settle(this.id, undefined);
      this.context.turn.log.log("warn", `could not read the messages of session ${this.id} to count them`, {
        error: redact(describeError(error)),
      });
    }
  }
}

/**
 * A turn of a session otto stopped (aborted, or its next call held by the chat.params hook) fails
 * with otto's reason (`tool_loop`); other errors pass.
 */
function stoppedError(error: unknown, sessionID: string, context: ChildContext): unknown {
  const reason = context.stopReason?.(sessionID);
  if (reason === undefined) return error;
  return new OttoError(
    "tool_loop",
    reason,
    "Look at the session's dialog; raise limits.repeated_tool_calls in otto.jsonc if the calls were needed.",
    { cause: error },
  );
}

/**
 * The reply must come from the requested model and agent: OpenCode records both on the assistant
 * message. Accepting another model silently would make a "second opinion" the first one again.
 */
function verifyModel(reply: TurnReply, options: ChildOptions, sessionID: string): void {
  const { info } = reply;
  if (!sameModel(info, options.model)) {
    throw new OttoError(
      "model_mismatch",
      `Asked for ${formatModel(options.model)} but the reply came from ${info.providerID}/${info.modelID} (session ${sessionID}).`,
      "Check the model name with `opencode models` and set it exactly in otto.jsonc (models.*).",
    );
  }
  // v1 types only declare `mode`; OpenCode 1.18 also sets `agent` (both are the agent's name).
  const agent = (info as { agent?: string }).agent ?? info.mode;
  if (agent && agent !== options.agent) {
    throw new OttoError(
      "agent_mismatch",
      `Asked for agent ${options.agent} but the reply came from agent ${agent} (session ${sessionID}).`,
      "Make sure the otto plugin's agents are registered (restart OpenCode), then run the command again.",
    );
  }
}
