import { learnCommand } from "../pr/index.ts";
import { cwdOf, type Verb } from "./command.ts";

/** /otto-rules learn: rules learning's verb, beside the store's verbs (docs/rules-learning.md). */
export const learnVerb: Verb = {
  path: ["learn"],
  args: "[--since 30d]",
  summary:
    "Learn team rules from the repository's recent PRs (reviewers' answered comments, push-backs, applied or dismissed /pr-review comments, /otto remember): at most rules.learn_max pending rules, each checked by a second model",
  options: { since: { type: "string" } },
  positionals: { max: 0 },
  run: async ({ values }, ctx) => {
    ctx.progress("otto-rules learn: reading the repository's PRs");
    return learnCommand({
      runtime: ctx.runtime,
      directory: cwdOf(ctx),
      sessionID: ctx.tool.sessionID,
      since: typeof values.since === "string" ? values.since : undefined,
      signal: ctx.tool.abort,
    });
  },
};
