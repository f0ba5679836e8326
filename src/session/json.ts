import { z } from "zod";
import { OttoError, type Env } from "../core/index.ts";
import { parseEnvelope, rescueJson } from "./envelope.ts";
import { formatModel, type ModelRef } from "./model.ts";
import type { PromptRenderer } from "./types.ts";

export interface JsonOptions {
  /** Follow-up prompts in the same session when the envelope is missing or invalid (decision 18). */
  retries?: number;
  system?: string;
  /** How the expected JSON is described in the retry prompt; default: the schema as JSON Schema. */
  expected?: string;
}

export interface JsonReply<T> {
  value: T;
  /** The reply the value came from. */
  text: string;
  sessionID: string;
  /** Prompts sent, counting the first. */
  attempts: number;
  /** True when the value came from best-effort extraction instead of a valid envelope. */
  rescued: boolean;
}

/** The part of a child session this needs: one session, prompted again on failure. */
interface Promptable {
  id: string;
  model: ModelRef;
  prompt(text: string, opts?: { system?: string }): Promise<{ text: string }>;
}

/** The schema as JSON Schema text for the retry prompt; schemas that cannot be converted get a hint. */
export function describeSchema(schema: z.ZodType): string {
  try {
    const shape: Record<string, unknown> = { ...z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) };
    delete shape.$schema; // the dialect URL is noise for a model
    return JSON.stringify(shape, null, 2);
  } catch {
    return "the JSON object described in the original instructions";
  }
}

/**
 * Prompts, validates the last BEGIN_JSON … END_JSON block against `schema`, and on failure resumes
 * the SAME session with the `json-retry` prompt (the model keeps its reasoning; decision 18), up to
 * `retries` times. Then best-effort extraction over the replies, newest first; then `invalid_envelope`.
 */
export async function promptJson<S extends z.ZodType>(
  session: Promptable,
  text: string,
  schema: S,
  opts: JsonOptions,
  deps: { render: PromptRenderer; env?: Env },
): Promise<JsonReply<z.output<S>>> {
  const retries = opts.retries ?? 2;
  const replies: string[] = [];
  let reply = await session.prompt(text, { system: opts.system });
  replies.push(reply.text);
  let result = parseEnvelope(reply.text, schema);
  while (!result.ok && replies.length <= retries) {
    const retry = deps.render(
      "json-retry",
      { validation_error: result.error, expected_shape: opts.expected ?? describeSchema(schema) },
      { env: deps.env },
    );
    reply = await session.prompt(retry, { system: opts.system });
    replies.push(reply.text);
    result = parseEnvelope(reply.text, schema);
  }
  const base = { sessionID: session.id, attempts: replies.length };
  if (result.ok) return { ...base, value: result.value, text: reply.text, rescued: false };

  for (const candidate of [...replies].reverse()) {
    const rescued = rescueJson(candidate, schema);
    if (rescued) return { ...base, value: rescued.value, text: candidate, rescued: true };
  }
  throw new OttoError(
    "invalid_envelope",
    `The model (${formatModel(session.model)}, session ${session.id}) did not return valid JSON after ${replies.length} attempts. ${result.error}`,
    "Run the command again; if it keeps failing, use a stronger model for this role in otto.jsonc.",
  );
}
