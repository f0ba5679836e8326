import { OttoError } from "../core/index.ts";
import type { Runtime } from "../runtime.ts";
import { createPrContext } from "../pr/index.ts";
import { draftsDir, readDraft } from "./draft.ts";
import { postReviewFromDraft } from "./post.ts";
import { locateTarget, postedLine, readPr } from "./review.ts";
import { parseSelection } from "./selection.ts";

export interface PostCommandInput {
  runtime: Runtime;
  directory: string;
  /** What the user typed after `post`: "all", "1,3", "1 3", "2-4". */
  selection: string;
  /** Also post the model's summary in the review's body. */
  summary: boolean;
  /** --pr: which draft, when several PRs were reviewed; default the newest draft. */
  pr?: string;
  provider?: string;
  progress(message: string): void;
}

/** /pr-review post <ids|all>: posts the chosen comments of a draft as one review. */
export async function postDraft(input: PostCommandInput): Promise<string> {
  const { runtime } = input;
  const locator =
    input.pr === undefined
      ? undefined
      : (await locateTarget(await createPrContext(runtime, input.directory), input.directory, input.pr, input.provider)).locator;
  const { file, draft } = await readDraft(draftsDir(runtime.env), locator);
  const ids = parseSelection(
    input.selection,
    draft.comments.map((c) => c.id),
  );
  input.progress(`pr-review: posting on PR #${draft.pr.number}`);
  const { pr, backend, ctx } = await readPr(runtime, input.directory, {
    provider: draft.pr.provider,
    repo: draft.pr.repo,
    number: draft.pr.number,
  });
  if (pr.state !== "open")
    throw new OttoError(
      "pr_not_open",
      `PR #${pr.number} (${pr.repo}) is ${pr.state}; otto does not post reviews on it.`,
      "Nothing to do; delete the draft if you like: " + file,
    );
  const result = await postReviewFromDraft({ file, backend, pr, ids, summary: input.summary, secrets: ctx.loaded.secrets });
  return postedLine(result);
}
