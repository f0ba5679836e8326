import type { AssistantMessage } from "@opencode-ai/sdk";
import { OttoError, redact } from "../core/index.ts";
import { formatModel, type ModelRef } from "./model.ts";

/** The error OpenCode records on an assistant message or sends in `session.error`. */
export type ProviderError = NonNullable<AssistantMessage["error"]>;

export interface ErrorContext {
  sessionID: string;
  model: ModelRef;
}

/** The most useful text in an error-like value (SDK error bodies, Errors, provider errors). Not redacted. */
export function describeError(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.message;
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const data = record.data as Record<string, unknown> | undefined;
    for (const candidate of [data?.message, record.message, record.error]) {
      if (typeof candidate === "string" && candidate) return candidate;
    }
    try {
      return JSON.stringify(value);
    } catch {
      return "(an error that cannot be shown)";
    }
  }
  return String(value);
}

const RETRY_FIX = "Check the model and provider with `opencode models`, then run the command again.";

/** Turns the error on a reply (or in a `session.error` event) into an OttoError. */
export function errorFromProvider(error: ProviderError | { name: string; data?: unknown }, ctx: ErrorContext): OttoError {
  const model = formatModel(ctx.model);
  const detail = redact(describeError(error));
  const where = `(model ${model}, session ${ctx.sessionID})`;
  switch (error.name) {
    case "MessageAbortedError":
      return new OttoError("session_aborted", `The model call was aborted ${where}.`, "Run the command again.");
    case "ProviderAuthError":
      return new OttoError(
        "model_error",
        `Provider authentication failed ${where}: ${detail}`,
        "Log in to the provider with `opencode auth login`, then run the command again.",
      );
    case "MessageOutputLengthError":
      return new OttoError("model_error", `The reply exceeded the model's output limit ${where}.`, RETRY_FIX);
    case "APIError": {
      const status = (error.data as { statusCode?: number } | undefined)?.statusCode;
      const code = status ? ` (HTTP ${status})` : "";
      return new OttoError("model_error", `The provider returned an error${code} ${where}: ${detail}`, RETRY_FIX);
    }
    default:
      return new OttoError("model_error", `The model call failed with ${error.name} ${where}: ${detail}`, RETRY_FIX);
  }
}

/** An `{ error }` result from the SDK (OpenCode answered 4xx/5xx) or a thrown fetch error. */
export function errorFromHttp(error: unknown, action: string, ctx: { sessionID?: string; model?: ModelRef }): OttoError {
  const parts = [ctx.model ? `model ${formatModel(ctx.model)}` : "", ctx.sessionID ? `session ${ctx.sessionID}` : ""];
  const where = parts.filter(Boolean).join(", ");
  const detail = redact(describeError(error ?? "no response body"));
  return new OttoError(
    "model_error",
    `OpenCode could not ${action}${where ? ` (${where})` : ""}: ${detail}`,
    "Check that the model and the otto agents exist (`opencode models`, /otto-config show), then run the command again.",
    { cause: error },
  );
}

export function timeoutError(ms: number, ctx: ErrorContext): OttoError {
  return new OttoError(
    "session_timeout",
    `The model did not finish within ${Math.round(ms / 1000)}s (model ${formatModel(ctx.model)}, session ${ctx.sessionID}); the session was aborted.`,
    "Raise the timeout in otto.jsonc, or split the work into smaller steps, then run the command again.",
  );
}

export function abortedError(ctx: ErrorContext): OttoError {
  return new OttoError(
    "session_aborted",
    `The model call was cancelled (model ${formatModel(ctx.model)}, session ${ctx.sessionID}).`,
    "Run the command again when you are ready.",
  );
}
