import type { z } from "zod";
import { formatError } from "../core/index.ts";
import { isBudgetStop, type Account } from "../cost/index.ts";
import { formatModel, type ChildSession, type ModelRef } from "../session/index.ts";
import type { ExecuteDeps } from "./types.ts";

/** otto's role agents: edits allowed (force-push denied) / read-only. */
export const EXECUTOR = "otto-executor";
export const REVIEWER = "otto-reviewer";

export interface PassOptions {
  agent: typeof EXECUTOR | typeof REVIEWER;
  model: ModelRef;
  /** Session title, shown under the invoking session in the TUI. */
  title: string;
  /** Read the conversation before the session is deleted (default true; history and harvesting need it). */
  dialog?: boolean;
  /** Where its model calls are charged (an attempt's own account); default: the work's (withAccount). */
  account?: Account;
  /** The team rules in scope of the task's files, sent as the session's system text (docs/rules.md). */
  system?: string;
}

export interface PassResult<T = string> {
  /** Set when the session answered; undefined when it failed. */
  value?: T;
  /** The reply's text ("" on failure). */
  text: string;
  error?: unknown;
  sessionID?: string;
  /** The conversation as redacted markdown, read before the session was deleted. */
  dialog: string;
  /** "provider/model (agent)" */
  model: string;
  durationMs: number;
}

/**
 * Opens one child session of the run (under the invoking session, scoped to the repository,
 * limited by spec.task_timeout) and records it, before its first prompt, for a re-run's cleanup.
 */
export async function openPass(deps: ExecuteDeps, options: PassOptions): Promise<ChildSession> {
  const child = await deps.runner.openChild({
    parentID: deps.parentID,
    directory: deps.repoRoot,
    agent: options.agent,
    model: options.model,
    title: options.title,
    timeoutMs: deps.settings.taskTimeoutMs,
    signal: deps.signal,
    ...(options.account ? { account: options.account } : {}),
    ...(options.system ? { system: options.system } : {}),
  });
  await deps.sessions?.add(child.id);
  return child;
}

/** Closes a session opened ahead of its use that is not going to be used (no dialog to keep). */
export function discardPass(deps: ExecuteDeps, opened: Promise<ChildSession>): void {
  deps.background.add(opened.then((child) => child.close()));
}

/**
 * One fresh child session of the run (or `opened`, one opened ahead while something else ran),
 * closed (deleted) after its dialog is saved. Failures come back as data: the loop never dies.
 */
export async function runPass<T = string>(
  deps: ExecuteDeps,
  options: PassOptions,
  ask: (child: ChildSession) => Promise<{ value: T; text: string }>,
  opened?: Promise<ChildSession>,
): Promise<PassResult<T>> {
  const started = Date.now();
  const model = `${formatModel(options.model)} (${options.agent})`;
  let child: ChildSession | undefined;
  try {
    child = await (opened ?? openPass(deps, options));
    const { value, text } = await ask(child);
    const dialog = options.dialog === false ? "" : await dialogOf(child);
    return { value, text, sessionID: child.id, dialog, model, durationMs: Date.now() - started };
  } catch (error) {
    const dialog = child && options.dialog !== false ? await dialogOf(child) : "";
    return { text: "", error, sessionID: child?.id, dialog, model, durationMs: Date.now() - started };
  } finally {
    // Deleting the session is cleanup, not part of the task's chain: it runs in the background
    // (close never throws) and the run waits for all of them before it returns. A session that
    // could not be deleted stays in the run's record, for the next run to delete.
    if (child) {
      const open = child;
      deps.background.add(open.close().then(() => (open.deleted ? deps.sessions?.remove(open.id) : undefined)));
    }
  }
}

/** Work that must finish before the run returns but need not hold up the next step. */
export class Background {
  readonly #pending = new Set<Promise<unknown>>();

  add(task: Promise<unknown>): void {
    const tracked = task.catch(() => undefined).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }

  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}

/** A plain prompt: the value is the reply's text; `answered` runs as soon as the reply is in, beside the dialog read. */
export function promptPass(
  deps: ExecuteDeps,
  options: PassOptions,
  prompt: string,
  more: { opened?: Promise<ChildSession>; answered?: () => void } = {},
): Promise<PassResult> {
  return runPass(
    deps,
    options,
    async (child) => {
      const reply = await child.prompt(prompt);
      more.answered?.();
      return { value: reply.text, text: reply.text };
    },
    more.opened,
  );
}

/** A prompt answered with a BEGIN_JSON envelope (retried in the same session when invalid). */
export function jsonPass<S extends z.ZodType>(
  deps: ExecuteDeps,
  options: PassOptions,
  prompt: string,
  schema: S,
): Promise<PassResult<z.output<S>>> {
  return runPass(deps, options, async (child) => {
    const reply = await child.promptJson(prompt, schema);
    return { value: reply.value, text: reply.text };
  });
}

async function dialogOf(child: ChildSession): Promise<string> {
  return child.dialog().catch((error: unknown) => `_(could not read the dialog: ${formatError(error)})_`);
}

/**
 * Waits until the sessions closed so far are counted exactly (a session's close reconciles its
 * calls): what a record of spend (history, tasks.md, the summary) needs first.
 */
export async function counted(deps: Pick<ExecuteDeps, "background" | "runner">): Promise<void> {
  await deps.background.settle();
  await deps.runner.meter?.flush();
}

/** The run's budget was reached: the run stops as a cancel does (signal aborted with the budget stop). */
export function budgetStopped(deps: Pick<ExecuteDeps, "signal">): boolean {
  return deps.signal?.aborted === true && isBudgetStop(deps.signal.reason);
}

/** The tool was cancelled, or the run's budget reached: stop the run (this is not a task failure). */
export function cancelled(deps: Pick<ExecuteDeps, "signal">): boolean {
  return deps.signal?.aborted === true;
}
