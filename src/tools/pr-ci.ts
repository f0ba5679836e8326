import { docsUrl } from "../core/index.ts";
import { inertLog, runCi } from "../pr/index.ts";
import type { Verb } from "./command.ts";
import { failJob } from "./fail-job.ts";

/*
 * `/otto-pr ci`: the CI job's one command (`opencode run --command otto-pr -- ci`, docs/ci.md).
 * Progress goes to the job's log as it happens (stderr of the opencode process the plugin runs
 * in) as well as to the tool's title; the summary is the tool's output. When otto cannot run
 * (no sandbox, no event, no token, no model, a forge error) the process exits non-zero, so the job fails.
 */

export const ciVerb: Verb = {
  path: ["ci"],
  summary: `Run otto's PR work for the CI job's event (GitHub Actions, Azure Pipelines): fix the PR's failed pipeline or answer its comments; state lives in otto's comment on the PR (see ${docsUrl("ci.md")})`,
  positionals: { max: 0 },
  run: async (_input, ctx) => {
    // Under Azure Pipelines a printed `##vso[` is a command to the agent: all otto prints is made inert.
    const inert = (text: string): string => inertLog(text, ctx.runtime.env);
    const progress = (raw: string): void => {
      const line = inert(raw);
      ctx.progress(line);
      process.stderr.write(`${line}\n`);
    };
    try {
      const result = await runCi(ctx.runtime, {
        directory: ctx.tool.directory,
        sessionID: ctx.tool.sessionID,
        signal: ctx.tool.abort,
        progress,
      });
      const markdown = inert(result.markdown);
      process.stderr.write(`${markdown.split("\n")[0] ?? ""}\n`);
      return markdown;
    } catch (error) {
      failJob();
      if (error instanceof Error) error.message = inert(error.message);
      throw error;
    }
  },
};
