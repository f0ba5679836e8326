import type { OpencodeClient, Part, ToolPart } from "@opencode-ai/sdk";
import { text, type RecordedRequest, type ScriptEntry, type Step } from "../../support/index.ts";

/**
 * A scripted model for /otto-spec, driven by prompt content: each child session's first request
 * carries one of otto's prompts, recognised by a phrase of the builtin prompt file. Several
 * sessions run per command (generate, review, refine, repairs, questions in parallel), so nothing
 * here depends on arrival order.
 */

export type Kind =
  | "requirements"
  | "research"
  | "design"
  | "tasks"
  | "review"
  | "refine"
  | "document-retry"
  | "json-retry"
  | "question-resolve"
  | "question-validate"
  | "spec-run";

const PHRASES: Array<[string, Kind]> = [
  ["You are the requirements analyst", "requirements"],
  ["You are the technical researcher", "research"],
  ["You are the software architect", "design"],
  ["You are the technical lead planning", "tasks"],
  ["You are an independent reviewer", "review"],
  ["You wrote the artifact below", "refine"],
  ["otto checked it in code and found the problems below", "document-retry"],
  ["Your previous answer could not be used", "json-retry"],
  ["An open question was raised while working on a spec", "question-resolve"],
  ["Another model has proposed an answer", "question-validate"],
  ["The user has a request about this spec", "spec-run"],
];

export function kindOf(req: Pick<RecordedRequest, "lastUser" | "lastRole" | "isTitle">): Kind | undefined {
  if (req.isTitle || req.lastRole !== "user") return undefined;
  return PHRASES.find(([phrase]) => req.lastUser.includes(phrase))?.[1];
}

/** `design.md` for review/refine prompts; the question text for question prompts. */
export function subjectOf(req: Pick<RecordedRequest, "lastUser">): string {
  const artifact = /# The artifact(?: under review)?: (\S+)/.exec(req.lastUser)?.[1];
  if (artifact) return artifact;
  return /<question>\n([\s\S]*?)\n<\/question>/.exec(req.lastUser)?.[1] ?? "";
}

export const doc = (body: string): Step => text(`I wrote it.\nBEGIN_DOCUMENT\n${body.trim()}\nEND_DOCUMENT`);
export const envelope = (value: unknown): Step => text(`Done.\nBEGIN_JSON\n${JSON.stringify(value)}\nEND_JSON`);
export const approve = (): Step => envelope({ verdict: "approve", summary: "Good.", issues: [] });

export type Responder = (kind: Kind, req: RecordedRequest) => Step | undefined;

/** One entry answering every otto prompt through `respond`; reviews approve unless it says otherwise. */
export function specModel(respond: Responder): ScriptEntry {
  return {
    label: "spec model",
    times: Infinity,
    match: (req) => kindOf(req) !== undefined,
    reply: (req) => {
      const kind = kindOf(req) as Kind;
      const step = respond(kind, req) ?? (kind === "review" ? approve() : undefined);
      if (!step) throw new Error(`no scripted answer for a ${kind} prompt (${subjectOf(req)})`);
      return step;
    },
  };
}

/** The requests of one kind, in arrival order. */
export function requestsOf(requests: readonly RecordedRequest[], kind: Kind): RecordedRequest[] {
  return requests.filter((r) => kindOf(r) === kind);
}

export interface CommandRun {
  sessionID: string;
  /** The otto_spec tool's output (what the user sees). */
  output: string;
  /** The tool part's final title. */
  title: string;
}

/** Runs `/otto-spec <args>` in a new session of `opencode serve`, and returns the tool's result. */
export async function otto(client: OpencodeClient, args: string): Promise<CommandRun> {
  const session = (await client.session.create({ body: { title: `otto-spec ${args}` }, throwOnError: true })).data;
  await client.session.command({ path: { id: session.id }, body: { command: "otto-spec", arguments: args }, throwOnError: true });
  const messages = (await client.session.messages({ path: { id: session.id }, throwOnError: true })).data;
  const tool = messages.flatMap((m) => m.parts).find((p: Part): p is ToolPart => p.type === "tool" && p.tool === "otto_spec");
  if (!tool || tool.state.status !== "completed") {
    throw new Error(`otto_spec did not complete for '${args}': ${JSON.stringify(tool?.state ?? messages.map((m) => m.parts))}`);
  }
  return { sessionID: session.id, output: tool.state.output, title: tool.state.title };
}

/** tasks.md text from compact rows: [id, status, group, deps, title]. */
export function tasksMd(rows: Array<[string, string, number, string[], string]>): string {
  const tasks = rows.map(
    ([id, status, group, deps, title], i) =>
      `## Task ${i + 1}: ${title}\n- **id**: ${id}\n- **status**: ${status}\n- **parallel_group**: ${group}\n- **depends_on**: [${deps.join(", ")}]\n- **description**: ${title}.\n  Covers AC-1.1.\n- **files**: ["src/${id}.js"]`,
  );
  return `# Tasks\n\n${tasks.join("\n\n")}\n`;
}
