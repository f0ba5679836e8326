import { tool, type ToolDefinition } from "./tool.ts";
import { formatError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { createPullRequest } from "../pr/index.ts";
import { liveTitle } from "./live-title.ts";

/**
 * `otto_pr_create`: the typed form of `/otto-pr create`, for agents and scripts. Same code as the
 * slash command's verb.
 */
export function prCreateTool(runtime: Runtime): ToolDefinition {
  return tool({
    description:
      "Opens a pull request for the current branch and tracks it: checks the branch (not the default branch, commits ahead of the base, not behind its remote), pushes it to origin without force, opens the PR on origin's forge (GitHub, GitHub Enterprise, Azure DevOps with auto-complete) and writes its PR document for the watcher. A branch that already has an open PR is tracked, never opened twice. The description is `body`, or built from the spec `spec`, or written by the primary model from the diff.",
    args: {
      title: tool.schema
        .string()
        .optional()
        .describe("The PR's title (default: the spec's title, the single commit's subject, or the model's)."),
      body: tool.schema.string().optional().describe("The PR's description, used as it is. Not with `spec`."),
      spec: tool.schema
        .string()
        .optional()
        .describe(
          "A spec's slug: the description is built from its requirements, completed tasks with their evidence, and open questions.",
        ),
      base: tool.schema.string().optional().describe("The branch to merge into (default: the repository's default branch)."),
      draft: tool.schema.boolean().optional().describe("Open the PR as a draft."),
      reviewers: tool.schema
        .array(tool.schema.string())
        .optional()
        .describe("GitHub logins, or Azure DevOps identity ids, to request reviews from."),
    },
    async execute(args, toolCtx) {
      const title = liveTitle(runtime, toolCtx);
      try {
        const result = await createPullRequest(runtime, {
          directory: toolCtx.directory,
          ...(args.title !== undefined ? { title: args.title } : {}),
          ...(args.body !== undefined ? { body: args.body } : {}),
          ...(args.spec !== undefined ? { spec: args.spec } : {}),
          ...(args.base !== undefined ? { base: args.base } : {}),
          draft: args.draft === true,
          reviewers: args.reviewers ?? [],
          now: new Date(),
          sessionID: toolCtx.sessionID,
          signal: toolCtx.abort,
          progress: (text) => title.set(text),
        });
        await title.flush();
        return {
          title: `otto: PR #${result.pr.number} ${result.created ? "opened" : "already open"}`,
          output: result.markdown,
          metadata: {},
        };
      } catch (error) {
        await title.flush();
        return formatError(error);
      }
    },
  });
}
