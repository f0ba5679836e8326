import type { ToolDefinition } from "@opencode-ai/plugin";
import { OttoError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { currentBranchPr } from "../pr/index.ts";
import { postDraft, reviewPr, runReviewLoop } from "../pr-review/index.ts";
import { defineCommand, type Values, type Verb } from "./command.ts";

const text = (values: Values, key: string): string | undefined => (typeof values[key] === "string" ? values[key] : undefined);

function postMode(value: string | undefined): boolean {
  if (value === undefined || value === "none") return false;
  if (value === "all") return true;
  throw new OttoError(
    "usage",
    `--post takes all or none, not '${value}'.`,
    "Use --post all to post every comment at once, or leave it out to approve them with /pr-review post <ids>.",
  );
}

const verbs: Verb[] = [
  {
    path: [],
    args: "[url|number] [--post all|none] [--focus <text>] [--provider github|ado] [--loop [--budget <usd>] [--max-tokens <n>]]",
    summary:
      "Review a PR (default: the open PR of the current branch) in a local checkout and show numbered comments to approve (a draft); --post all posts them at once; --loop runs the multi-model review-and-fix loop, stopping cleanly at --budget dollars or --max-tokens tokens",
    options: {
      post: { type: "string" },
      focus: { type: "string" },
      provider: { type: "string" },
      loop: { type: "boolean" },
      budget: { type: "string" },
      "max-tokens": { type: "string" },
    },
    positionals: { max: 1 },
    run: async ({ values, positionals }, ctx) => {
      if (!positionals[0]) ctx.progress("pr-review: looking up the PR of the current branch");
      const target = positionals[0] ?? (await currentBranchPr(ctx.runtime, ctx.tool.directory));
      const provider = text(values, "provider");
      const common = {
        runtime: ctx.runtime,
        directory: ctx.tool.directory,
        target,
        ...(provider ? { provider } : {}),
        sessionID: ctx.tool.sessionID,
        signal: ctx.tool.abort,
        progress: (m: string) => ctx.progress(m),
      };
      if (values.loop === true) {
        if (values.post !== undefined || values.focus !== undefined)
          throw new OttoError(
            "usage",
            "--post and --focus belong to the one-shot review, not to --loop.",
            "Run /pr-review <url> --loop alone (the loop posts its own reports), or drop --loop.",
          );
        const budget = text(values, "budget");
        const maxTokens = text(values, "max-tokens");
        return runReviewLoop({
          ...common,
          budget: { ...(budget !== undefined ? { budget } : {}), ...(maxTokens !== undefined ? { maxTokens } : {}) },
        });
      }
      if (values.budget !== undefined || values["max-tokens"] !== undefined)
        throw new OttoError(
          "usage",
          "--budget and --max-tokens belong to --loop: a one-shot review is one model call.",
          "Run /pr-review <url> --loop --budget 2 to bound the loop, or drop the flag.",
        );
      const focus = text(values, "focus");
      return reviewPr({ ...common, ...(focus ? { focus } : {}), postAll: postMode(text(values, "post")) });
    },
  },
  {
    path: ["post"],
    args: "<ids|all> [--summary] [--pr <url|number>] [--provider github|ado]",
    summary: "Post the chosen comments of the newest review draft (or --pr's) as one review; --summary adds the model's summary",
    options: { summary: { type: "boolean" }, pr: { type: "string" }, provider: { type: "string" } },
    positionals: { min: 1, max: 50 },
    run: async ({ values, positionals }, ctx) => {
      const pr = text(values, "pr");
      const provider = text(values, "provider");
      return postDraft({
        runtime: ctx.runtime,
        directory: ctx.tool.directory,
        // "1, 3" arrives as two words.
        selection: positionals.join(","),
        summary: values.summary === true,
        ...(pr ? { pr } : {}),
        ...(provider ? { provider } : {}),
        progress: (m: string) => ctx.progress(m),
      });
    },
  },
];

/** /pr-review: review a PR once (draft, approve, post) or in a review-and-fix loop (docs/pr-review.md). */
export function prReviewCommand(runtime: Runtime): ToolDefinition {
  return defineCommand(
    { name: "pr-review", summary: "review a GitHub or Azure DevOps PR and post the approved comments", verbs, bareRuns: true },
    runtime,
  );
}
