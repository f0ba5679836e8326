import type { Part, ToolPart } from "@opencode-ai/sdk";
import { redact } from "../core/index.ts";
import type { SessionMessage } from "./types.ts";

export interface DialogOptions {
  /** Longest tool input/output kept, in characters (the rest is cut with a marker). */
  maxToolChars?: number;
  /** Extra secret values to redact besides the known token formats. */
  secrets?: readonly string[];
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… (${text.length - max} more characters cut)`;
}

/** A fenced block whose fence is longer than any backtick run inside it. */
function fenced(text: string, lang = ""): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

function renderTool(part: ToolPart, max: number): string {
  const { state } = part;
  const lines = [`**Tool \`${part.tool}\`** (${state.status})`];
  if (Object.keys(state.input).length > 0) {
    lines.push("Input:", fenced(truncate(JSON.stringify(state.input, null, 2), max), "json"));
  }
  if (state.status === "completed") lines.push("Output:", fenced(truncate(state.output, max)));
  if (state.status === "error") lines.push(`Error: ${truncate(state.error, max)}`);
  return lines.join("\n");
}

function renderPart(part: Part, max: number): string | undefined {
  switch (part.type) {
    case "text":
      return part.ignored || !part.text.trim() ? undefined : part.text.trim();
    case "tool":
      return renderTool(part, max);
    case "file":
      return `_(file: ${part.filename ?? part.url})_`;
    case "subtask":
      return `_(subtask for agent ${part.agent}: ${part.description})_`;
    case "patch":
      return `_(changed files: ${part.files.join(", ")})_`;
    case "retry":
      return `> Retry ${part.attempt}: ${part.error.data.message}`;
    default:
      return undefined; // reasoning, step markers, snapshots: not part of the conversation record
  }
}

function heading(message: SessionMessage): string {
  const { info } = message;
  if (info.role === "user") return "## User";
  return `## Assistant (${info.providerID}/${info.modelID}, ${info.mode})`;
}

/** The error an assistant message ended with, as a quoted line of the dialog. */
function messageErrorLine(message: SessionMessage): string | undefined {
  if (message.info.role !== "assistant" || !message.info.error) return undefined;
  const { name, data } = message.info.error;
  const detail = typeof data.message === "string" ? `: ${data.message}` : "";
  return `> **Error** ${name}${detail}`;
}

/**
 * The conversation of a session as markdown, for history and log files: user prompts, assistant
 * text, tool calls with their (truncated) inputs and outputs, and errors. Secrets are redacted.
 */
export function renderDialog(messages: readonly SessionMessage[], options: DialogOptions = {}): string {
  const max = options.maxToolChars ?? 2000;
  const sections = messages.map((message) => {
    const body = message.parts.map((part) => renderPart(part, max)).filter((s): s is string => s !== undefined);
    const error = messageErrorLine(message);
    if (error) body.push(error);
    return [heading(message), ...(body.length ? body : ["_(no text)_"])].join("\n\n");
  });
  return redact(sections.join("\n\n"), options.secrets);
}
