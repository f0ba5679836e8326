import path from "node:path";
import { text, toolCall, type RecordedRequest, type ScriptEntry, type Step } from "../../support/index.ts";
import { execKindOf, taskIdOf, type ExecKind } from "./kinds.ts";

/**
 * A scripted model for /otto-spec execute, answering each child session by the otto prompt it
 * carries (sessions of a phase run concurrently, so nothing depends on arrival order). By default
 * an executor writes `src/<task>.txt` with OpenCode's real `write` tool, then summarises; reviews
 * approve; harvesting finds nothing; the docs pass writes docs/usage.md.
 */

export const envelope = (value: unknown): Step => text(`Report.\nBEGIN_JSON\n${JSON.stringify(value)}\nEND_JSON`);
export const approve = (): Step => envelope({ verdict: "approve", summary: "Looks right.", issues: [] });
export const doc = (body: string): Step => text(`Here it is.\nBEGIN_DOCUMENT\n${body}\nEND_DOCUMENT`);

/** First turn of a session (the prompt) or the follow-up after its tool calls. */
export const isFollowUp = (req: RecordedRequest): boolean => req.lastRole === "tool";

export function kindOf(req: RecordedRequest): ExecKind | undefined {
  return req.isTitle ? undefined : execKindOf(req.lastUser);
}

/** An executor turn that writes files with the `write` tool, then ends with `summary`. */
export function writes(project: string, req: RecordedRequest, files: Record<string, string>, summary: string): Step {
  if (isFollowUp(req)) return text(summary);
  const [[file, content] = ["", ""], ...rest] = Object.entries(files);
  if (rest.length > 0) throw new Error("writes() writes one file per turn");
  return toolCall("write", { filePath: path.join(project, file), content });
}

export type Respond = (kind: ExecKind, req: RecordedRequest) => Step | undefined;

export function defaultStep(project: string, kind: ExecKind, req: RecordedRequest): Step {
  const task = taskIdOf(req.lastUser) ?? "?";
  switch (kind) {
    case "execute-task":
      return writes(project, req, { [`src/${task}.txt`]: `${task}\n` }, `Created src/${task}.txt.`);
    case "task-briefing":
      return doc(`# Brief: ${task}\n\n## Goal\nWrite src/${task}.txt.`);
    case "phase-review":
    case "review":
      return approve();
    case "question-harvest":
      return envelope({ questions: [] });
    case "docs-align":
    case "docs-finalize":
      return isFollowUp(req) || kind === "docs-finalize"
        ? doc("# Documentation Alignment\n\n## Changes\n- `docs/usage.md`: describes the greeting files.")
        : toolCall("write", { filePath: path.join(project, "docs/usage.md"), content: "# Usage\n\nsrc/ holds one greeting per task.\n" });
    default:
      return text(`${kind}: nothing to change.`);
  }
}

/** One entry answering every otto execute prompt through `respond`, falling back to defaultStep. */
export function execModel(project: string, respond: Respond = () => undefined): ScriptEntry {
  return {
    label: "exec model",
    times: Infinity,
    match: (req) => kindOf(req) !== undefined,
    reply: (req) => {
      const kind = kindOf(req) as ExecKind;
      return respond(kind, req) ?? defaultStep(project, kind, req);
    },
  };
}

/** Executor requests that start an attempt (not the follow-ups after tool calls), in arrival order. */
export function attempts(requests: readonly RecordedRequest[], task?: string): RecordedRequest[] {
  return requests.filter((r) => kindOf(r) === "execute-task" && !isFollowUp(r) && (task === undefined || taskIdOf(r.lastUser) === task));
}

/**
 * The typed tool, called by the otto agent's model, its output echoed back. Slash commands
 * (whose prompt carries `<args>`) are left to slashCommand's entries.
 */
export function callExecute(spec?: string): ScriptEntry[] {
  const typed = (req: RecordedRequest): boolean => req.toolNames.includes("otto_spec_execute") && !req.lastUser.includes("<args>");
  return [
    {
      label: "otto_spec_execute call",
      times: Infinity,
      match: (req) => typed(req) && req.lastRole === "user",
      reply: toolCall("otto_spec_execute", spec ? { spec } : {}),
    },
    {
      label: "otto_spec_execute echo",
      times: Infinity,
      match: (req) => typed(req) && req.lastRole === "tool",
      reply: (req) => text(req.toolResults[0]?.content ?? ""),
    },
  ];
}
