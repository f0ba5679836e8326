import { OttoError, withFileLock } from "../core/index.ts";
import { sanitizeForPost, type InlineComment, type PrBackend, type PrInfo, type ReviewPost } from "../pr/index.ts";
import type { DraftComment } from "./classify.ts";
import { readDraftFile, writeDraftFile, type Draft } from "./draft.ts";
import { inlineBody, reviewBody } from "./render.ts";

export interface PlannedReview {
  review: ReviewPost;
  inline: DraftComment[];
  outside: DraftComment[];
  /** Chosen ids that an earlier `post` already posted; left out. */
  skipped: number[];
}

/**
 * The review to post for the chosen ids (pure): comments inside the diff inline, the others in the
 * body, everything through sanitizeForPost. Refuses an empty review.
 */
export function planReview(draft: Draft, ids: readonly number[], options: { summary: boolean; secrets: readonly string[] }): PlannedReview {
  const done = new Set(draft.posted);
  const chosen = draft.comments.filter((c) => ids.includes(c.id) && !done.has(c.id));
  const skipped = ids.filter((id) => done.has(id));
  if (chosen.length === 0 && !options.summary) {
    const why =
      skipped.length > 0
        ? `comment${skipped.length === 1 ? "" : "s"} ${skipped.join(", ")} ${skipped.length === 1 ? "was" : "were"} posted already.`
        : "no comment was chosen.";
    throw new OttoError(
      "pr_review_nothing",
      `Nothing to post: ${why}`,
      "Pick other ids from the table (/pr-review post <ids>), or add --summary to post the summary alone.",
    );
  }
  const inline = chosen.filter((c) => c.inDiff);
  const outside = chosen.filter((c) => !c.inDiff);
  const comments: InlineComment[] = inline.map((c) => ({
    path: c.file,
    line: c.line,
    side: "RIGHT",
    body: sanitizeForPost(inlineBody(c), options.secrets),
  }));
  const body = sanitizeForPost(
    reviewBody({ ...(options.summary ? { summary: draft.summary } : {}), inlineCount: inline.length, outside }),
    options.secrets,
  );
  return { review: { body, comments }, inline, outside, skipped };
}

export interface PostInput {
  file: string;
  backend: PrBackend;
  /** The PR as the forge reports it now. */
  pr: PrInfo;
  ids: readonly number[];
  summary: boolean;
  secrets: readonly string[];
}

export interface PostResult extends PlannedReview {
  draft: Draft;
  /** The PR moved on since the review: its comments are anchored to the reviewed commit. */
  moved: boolean;
}

/** Posts one review from the draft and records the posted ids, under the draft's lock so two posts never repeat a comment. */
export function postReviewFromDraft(input: PostInput): Promise<PostResult> {
  return withFileLock(input.file, async () => {
    const draft = await readDraftFile(input.file);
    const plan = planReview(draft, input.ids, { summary: input.summary, secrets: input.secrets });
    // Lines refer to the reviewed version: anchor the review there (GitHub marks it outdated where the code changed since).
    await input.backend.postReview({ ...input.pr, headSha: draft.pr.headSha }, plan.review);
    const posted = [...new Set([...draft.posted, ...plan.inline.map((c) => c.id), ...plan.outside.map((c) => c.id)])].sort((a, b) => a - b);
    const updated = { ...draft, posted };
    await writeDraftFile(input.file, updated);
    return { ...plan, draft: updated, moved: input.pr.headSha !== "" && input.pr.headSha !== draft.pr.headSha };
  });
}
