import type { z } from "zod";
import { MARKERS } from "../prompts/index.ts";
import { formatZodIssues } from "../core/index.ts";

/*
 * Structured answers come in an envelope the prompts ask for:
 *   BEGIN_JSON
 *   { ... }
 *   END_JSON
 * Models sometimes think aloud first or quote the format, so the LAST block wins.
 */

// The markers are shared with the prompts (src/prompts/markers.ts) so both sides agree.
const ENVELOPE = new RegExp(`${MARKERS.jsonBegin}\\s*([\\s\\S]*?)\\s*${MARKERS.jsonEnd}`, "g");
const DOCUMENT = new RegExp(`${MARKERS.documentBegin}[ \\t]*\\r?\\n?([\\s\\S]*?)\\r?\\n?[ \\t]*${MARKERS.documentEnd}`, "g");
const FENCE = /^```[\w-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

function lastMatch(pattern: RegExp, text: string): string | undefined {
  let last: string | undefined;
  for (const match of text.matchAll(pattern)) last = match[1];
  return last;
}

/** Strips one surrounding ``` fence (```json, ```markdown, ...), if the whole text is fenced. */
export function stripFence(text: string): string {
  const trimmed = text.trim();
  return FENCE.exec(trimmed)?.[1] ?? trimmed;
}

/** The raw text inside the last BEGIN_JSON … END_JSON block, or undefined when there is none. */
export function extractEnvelope(text: string): string | undefined {
  const body = lastMatch(ENVELOPE, text);
  return body === undefined ? undefined : stripFence(body);
}

/**
 * The document inside the last BEGIN_DOCUMENT … END_DOCUMENT block. Without markers: the whole
 * text, minus a leading preamble line ("Here is the design:") and a fence around the rest.
 */
export function extractDocument(text: string): string {
  const body = lastMatch(DOCUMENT, text);
  if (body !== undefined) return stripFence(body).trim();
  const lines = text.trim().split(/\r?\n/);
  if (lines.length > 1 && /^(here('s| is| are)|sure|certainly|below is|okay|ok)\b.*[:.!]\s*$/i.test(lines[0] ?? "")) {
    lines.shift();
  }
  return stripFence(lines.join("\n")).trim();
}

/** Every balanced top-level `{…}` / `[…]` span in the text that parses as JSON, in order. */
export function jsonCandidates(text: string): unknown[] {
  const found: unknown[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch !== "{" && ch !== "[") {
      i++;
      continue;
    }
    const end = matchingBracket(text, i);
    if (end === -1) {
      i++;
      continue;
    }
    try {
      found.push(JSON.parse(text.slice(i, end + 1)));
      i = end + 1;
    } catch {
      i++; // Not JSON (prose in brackets): look for an object starting inside it.
    }
  }
  return found;
}

/** Index of the bracket closing the one at `start`, honouring JSON strings; -1 if unbalanced. */
function matchingBracket(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") stack.push("}");
    else if (ch === "[") stack.push("]");
    else if (ch === "}" || ch === "]") {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

export type EnvelopeResult<T> = { ok: true; value: T } | { ok: false; error: string; issues: z.core.$ZodIssue[] };

/** Finds, parses and validates the envelope in one reply. Pure. */
export function parseEnvelope<S extends z.ZodType>(text: string, schema: S): EnvelopeResult<z.output<S>> {
  const body = extractEnvelope(text);
  if (body === undefined) {
    return { ok: false, error: "The reply has no BEGIN_JSON … END_JSON block.", issues: [] };
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `The text between BEGIN_JSON and END_JSON is not valid JSON: ${reason}`, issues: [] };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    error: `The JSON does not match the expected shape:\n${formatZodIssues(parsed.error.issues)}`,
    issues: parsed.error.issues,
  };
}

/**
 * Best-effort rescue when the envelope is missing or broken after the retries: tries each JSON
 * object/array in the text (fences and preamble are skipped by construction), last first.
 */
export function rescueJson<S extends z.ZodType>(text: string, schema: S): { value: z.output<S> } | undefined {
  for (const candidate of jsonCandidates(text).reverse()) {
    const parsed = schema.safeParse(candidate);
    if (parsed.success) return { value: parsed.data };
  }
  return undefined;
}
