/**
 * The script side of the scripted model: what a test writes (steps, matchers, entries) and what
 * it reads back (recorded requests). Pure: no I/O here; model-server.ts serves it over HTTP.
 */

/** One message as OpenCode sends it (OpenAI chat format; content may be a string or parts). */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface OfferedTool {
  name: string;
  description: string;
  parameters: unknown;
}

/** What the server saw of one chat-completions request and how it answered. */
export interface RecordedRequest {
  /** 1-based, in arrival order. */
  seq: number;
  startedAt: number;
  /** Set when the answer began (its headers were sent). */
  respondedAt?: number;
  /** Set when the answer was fully written, or the client went away. */
  endedAt?: number;
  model: string;
  /** All system messages joined with blank lines. */
  system: string;
  messages: ChatMessage[];
  /** Text of the last `user` message ("" if none). */
  lastUser: string;
  /** Role of the last message: "tool" means OpenCode is returning tool results. */
  lastRole: ChatMessage["role"] | undefined;
  /** Outputs of the trailing `tool` messages (the results of the previous turn's calls). */
  toolResults: { callId: string; content: string }[];
  /** The tools offered in this request, as sent (description and JSON-schema parameters included). */
  tools: OfferedTool[];
  /** Their names, for quick assertions. */
  toolNames: string[];
  /** Title-generation requests are answered automatically and never consume a script entry. */
  isTitle: boolean;
  /** Label of the entry that answered: the entry's `label`, "title" or "fallback". */
  answeredBy?: string;
  /** No scripted entry matched; the fallback answered. */
  unmatched: boolean;
  /** The client closed the connection before the answer was complete (e.g. session.abort). */
  aborted: boolean;
  /** The raw JSON body. */
  body: Record<string, unknown>;
  /** What the server answered (set when the answer is chosen). */
  reply?: Step;
  /** The usage the server reported for this request's answer (text and tool-call answers). */
  usage?: ServedUsage;
  /** With the server's promptCache option: the bytes of this request's beginning a provider's cache would serve. */
  cachedBytes?: number;
}

/** Usage as an OpenAI-compatible server reports it (`usage` of the last chunk). */
export interface ServedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

export interface ToolCallSpec {
  name: string;
  args: unknown;
  /** Defaults to `call_<seq>_<index>`. */
  id?: string;
}

export type Step =
  | { kind: "text"; content: string }
  | { kind: "tools"; calls: ToolCallSpec[]; content?: string }
  | { kind: "error"; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: "hang" }
  | { kind: "raw"; chunks: string[]; status?: number; contentType?: string }
  | { kind: "delay"; ms: number; step: Step }
  | { kind: "as"; model: string; step: Step };

/** A reply, or a function of the request that returns one (echo a value from the prompt, etc.). */
export type Reply = Step | ((req: RecordedRequest) => Step);

/** Declarative matchers: strings match by substring, regexps by test. All given fields must match. */
export interface MatchSpec {
  system?: string | RegExp;
  lastUser?: string | RegExp;
  /** Any message text (system, user, assistant, tool). */
  anyText?: string | RegExp;
  model?: string;
  /** A tool with this name is offered. */
  tool?: string;
  lastRole?: ChatMessage["role"];
}

export type Matcher = MatchSpec | ((req: RecordedRequest) => boolean);

export interface ScriptEntry {
  match?: Matcher;
  reply: Reply;
  /** How many requests this entry answers before it is used up (default 1; Infinity = always). */
  times?: number;
  /** Name shown in `answeredBy`; defaults to "#<n> <kind>". */
  label?: string;
}

// ---------------------------------------------------------------------------------------------
// Step builders

export const text = (content: string): Step => ({ kind: "text", content });

export function toolCall(name: string, args: unknown = {}, id?: string): Step {
  return { kind: "tools", calls: [{ name, args, id }] };
}

/** Several tool calls in one assistant turn (OpenCode runs them, then sends one follow-up). */
export function toolCalls(calls: ToolCallSpec[], content?: string): Step {
  return { kind: "tools", calls, content };
}

/**
 * An HTTP error. The default body mimics OpenAI's error envelope. OpenCode retries 5xx/429 (and
 * messages that look transient) forever with backoff from 2 s; pass `{ "retry-after-ms": "50" }`
 * in `headers` to make those retries fast.
 */
export function error(
  status: number,
  body: unknown = { error: { message: `scripted ${status}`, type: "server_error" } },
  headers: Record<string, string> = {},
): Step {
  return { kind: "error", status, body, headers };
}

/** Never answers; ends when the client aborts or the server is reset/closed. */
export const hang = (): Step => ({ kind: "hang" });

export const delay = (ms: number, step: Step): Step => ({ kind: "delay", ms, step });

/** Answers with a different `model` in the chunks than the one requested. */
export const as = (model: string, step: Step): Step => ({ kind: "as", model, step });

/** Raw response body pieces, written as given (use for malformed SSE). */
export function raw(chunks: string[], options: { status?: number; contentType?: string } = {}): Step {
  return { kind: "raw", chunks, ...options };
}

/** A well-formed SSE `data:` line with the given JSON payload, for building `raw` streams. */
export const sse = (payload: unknown): string => `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`;

/**
 * A well-behaved model for one of otto's slash commands: the command template asks the model to
 * call `tool` with the text between `<args>` and `</args>`, then to repeat the tool's output.
 * Spread into script(): `model.script(...slashCommand("otto_config"))`.
 */
export function slashCommand(tool: string): ScriptEntry[] {
  return [
    {
      label: `${tool} call`,
      match: { tool, lastRole: "user" },
      reply: (req) => toolCall(tool, { args: /<args>([\s\S]*?)<\/args>/.exec(req.lastUser)?.[1] ?? "" }),
    },
    { label: `${tool} echo`, match: { tool, lastRole: "tool" }, reply: (req) => text(req.toolResults[0]?.content ?? "") },
  ];
}

// ---------------------------------------------------------------------------------------------
// Request parsing and matching (pure)

export function messageText(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => part.text ?? "").join("");
  return "";
}

const TITLE_MARKER = "You are a title generator";

/**
 * A user message as otto wrote it. Otto sends the stable head of a session's first prompt as a
 * system part of its own (src/session/stable-system.ts: the second of three system messages, after
 * the agent's prompt, before OpenCode's environment block), and the rest as two messages, its
 * first paragraph and the remainder; scripts match the prompt whole, so the messages that open the
 * conversation are joined again, with the head before them. A request with fewer system messages
 * (an otto session without a head: the agent's prompt, then the environment; any other request)
 * gets no head back.
 */
export function promptText(messages: readonly ChatMessage[], message: ChatMessage | undefined): string {
  const conversation = messages.filter((m) => m.role !== "system");
  // Otto's split is a lone paragraph, then another user message. Two user messages in a row are
  // otherwise a new prompt after an aborted turn (whose empty answer OpenCode leaves out).
  const [a, b] = conversation;
  const split = a?.role === "user" && b?.role === "user" && !messageText(a).includes("\n\n");
  const opening = split ? [a, b] : a?.role === "user" ? [a] : [];
  if (message === undefined || !opening.includes(message)) return messageText(message);
  const text = opening.map(messageText).join("\n\n");
  const systems = messages.filter((m) => m.role === "system");
  return systems.length >= 3 ? `${messageText(systems[1])}\n\n${text}` : text;
}

export function parseRequest(seq: number, body: Record<string, unknown>): RecordedRequest {
  const messages = Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : [];
  const system = messages
    .filter((m) => m.role === "system")
    .map(messageText)
    .join("\n\n");
  const lastUser = promptText(messages, messages.filter((m) => m.role === "user").at(-1));
  const toolResults: RecordedRequest["toolResults"] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "tool"; i--) {
    const m = messages[i];
    toolResults.unshift({ callId: m?.tool_call_id ?? "", content: messageText(m) });
  }
  const tools: OfferedTool[] = Array.isArray(body.tools)
    ? (body.tools as { function?: { name?: string; description?: string; parameters?: unknown } }[]).map((t) => ({
        name: t.function?.name ?? "",
        description: t.function?.description ?? "",
        parameters: t.function?.parameters,
      }))
    : [];
  return {
    seq,
    startedAt: Date.now(),
    model: typeof body.model === "string" ? body.model : "",
    system,
    messages,
    lastUser,
    lastRole: messages.at(-1)?.role,
    toolResults,
    tools,
    toolNames: tools.map((t) => t.name),
    isTitle: system.includes(TITLE_MARKER),
    unmatched: false,
    aborted: false,
    body,
  };
}

function test(pattern: string | RegExp | undefined, value: string): boolean {
  if (pattern === undefined) return true;
  return typeof pattern === "string" ? value.includes(pattern) : pattern.test(value);
}

export function matches(matcher: Matcher | undefined, req: RecordedRequest): boolean {
  if (matcher === undefined) return true;
  if (typeof matcher === "function") return matcher(req);
  return (
    test(matcher.system, req.system) &&
    test(matcher.lastUser, req.lastUser) &&
    (matcher.anyText === undefined || req.messages.some((m) => test(matcher.anyText, messageText(m)))) &&
    (matcher.model === undefined || req.model === matcher.model) &&
    (matcher.tool === undefined || req.toolNames.includes(matcher.tool)) &&
    (matcher.lastRole === undefined || req.lastRole === matcher.lastRole)
  );
}

export function resolveReply(reply: Reply, req: RecordedRequest): Step {
  return typeof reply === "function" ? reply(req) : reply;
}

export function isEntry(value: ScriptEntry | Reply): value is ScriptEntry {
  return typeof value === "object" && "reply" in value;
}
