import { tool, type ToolDefinition } from "./tool.ts";
import { formatError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { executeVerb } from "../execute/index.ts";
import { liveTitle } from "./live-title.ts";
import { openPrAfterRun } from "./run-pr.ts";

/**
 * `otto_spec_execute`: the typed form of `/otto-spec execute`, for the otto agent to call with
 * structured arguments. Same code as the slash command's verb; blocks until the run ends, with
 * live progress in the tool's title.
 */
export function specExecuteTool(runtime: Runtime): ToolDefinition {
  return tool({
    description:
      "Runs a spec's tasks.md to committed, verified code: phase by phase, tasks of a phase in parallel child sessions, a review gate, hardening passes, the spec.verify commands and one git commit per phase, then a documentation pass. Resumes where an earlier run stopped (completed tasks never run again). Returns a markdown summary with the commits and any failures.",
    args: {
      spec: tool.schema
        .string()
        .optional()
        .describe("The spec's slug under .otto/specs (a unique prefix is enough). Omit it when the repository has exactly one spec."),
      here: tool.schema
        .boolean()
        .optional()
        .describe("Commit on the current branch even when it is the default branch (otherwise the run makes the spec's branch there)."),
      pr: tool.schema
        .boolean()
        .optional()
        .describe("When every task is done and verified, open the PR (as /otto-pr create --spec does) and track it."),
      budget: tool.schema
        .number()
        .optional()
        .describe(
          "Budget of this run in US dollars (default limits.run_usd): once spent, the run stops cleanly and resumes on the next call.",
        ),
      max_tokens: tool.schema
        .number()
        .optional()
        .describe("Budget of this run in tokens (a whole number) (default limits.run_tokens), likewise."),
    },
    async execute({ spec, here, pr, budget, max_tokens }, toolCtx) {
      const title = liveTitle(runtime, toolCtx);
      try {
        const result = await executeVerb(
          {
            runtime,
            sessionID: toolCtx.sessionID,
            directory: toolCtx.directory,
            signal: toolCtx.abort,
            progress: (text) => title.set(text),
          },
          spec,
          {
            here: here === true,
            ...(budget !== undefined ? { budget } : {}),
            ...(max_tokens !== undefined ? { maxTokens: max_tokens } : {}),
          },
        );
        const output =
          pr === true
            ? await openPrAfterRun(runtime, result, { sessionID: toolCtx.sessionID, abort: toolCtx.abort }, (text) => title.set(text))
            : result.output;
        await title.flush();
        return { title: result.title, output, metadata: {} };
      } catch (error) {
        await title.flush();
        runtime.log.log("warn", "otto_spec_execute failed", { error: formatError(error) });
        return formatError(error);
      }
    },
  });
}
