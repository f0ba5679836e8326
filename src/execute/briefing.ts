import { renderPrompt } from "../prompts/index.ts";
import { extractDocument } from "../session/index.ts";
import type { Task } from "../spec/index.ts";
import { briefingVars, type SpecContext } from "./context.ts";
import { openPass, promptPass, REVIEWER } from "./pass.ts";
import type { ExecuteDeps, Models } from "./types.ts";
import { errorLine } from "../core/index.ts";
import { applyRules } from "../rules/index.ts";

export interface Briefing {
  /** The brief; undefined when briefing is off or failed (the executor gets the documents). */
  brief?: string;
  /** For history: "brief by mock/m1 (otto-reviewer), session …" or "static context (why)". */
  note: string;
}

/**
 * The team rules in scope of the files a task touches (its `files`; none listed: the rules for the
 * whole repository), as system text for its briefing and its executor; counted as applied once.
 */
export async function taskRules(deps: ExecuteDeps, ctx: SpecContext, task: Task): Promise<string> {
  if (!ctx.rules) return "";
  return (await applyRules(ctx.rules, deps.repoRoot, task.files, "write", deps.env)).text;
}

/**
 * The task briefing: the primary model reads every spec document (and the code, read
 * only) and distils what this one task needs. Any failure (model error, timeout, no document in
 * the reply) falls back to the static context: briefing can make a task better, never block it.
 * `opened` runs once the briefing's session exists (at once when briefing is off), so what the
 * caller starts there does not delay the briefing's own start.
 */
export async function briefTask(
  deps: ExecuteDeps,
  models: Models,
  ctx: SpecContext,
  task: Task,
  opened: () => void = () => undefined,
  /** The team rules in scope of the task's files (taskRules). */
  rules = "",
): Promise<Briefing> {
  if (!deps.settings.taskBriefing) {
    opened();
    return { note: "static context (spec.task_briefing is off)" };
  }
  const prompt = renderPrompt("task-briefing", briefingVars(ctx, task), { env: deps.env });
  const options = {
    agent: REVIEWER,
    model: models.primary,
    title: `otto: brief ${task.id}`,
    dialog: false,
    ...(rules ? { system: rules } : {}),
  } as const;
  const session = openPass(deps, options);
  void session.then(opened, opened);
  const pass = await promptPass(deps, options, prompt, { opened: session });
  if (pass.error !== undefined) {
    deps.log.log("warn", `briefing of ${task.id} failed; using the static context`, { error: errorLine(pass.error) });
    return { note: `static context (briefing failed: ${errorLine(pass.error)})` };
  }
  const brief = extractDocument(pass.text).trim();
  if (!brief) return { note: `static context (the briefing reply had no document, session ${pass.sessionID ?? "?"})` };
  return { brief, note: `brief by ${pass.model}, session ${pass.sessionID ?? "?"}` };
}
