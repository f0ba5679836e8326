/** /pr-review: one-shot PR review (this folder) and the review-and-fix loop (loop/). */
export { reviewPr, readPr, postedLine, type ReviewInput } from "./review.ts";
export { postDraft, type PostCommandInput } from "./post-command.ts";
export { commentableLines, type CommentableLines } from "./diff-lines.ts";
export { classifyComments, diffPath, type DraftComment } from "./classify.ts";
export { parseSelection } from "./selection.ts";
export { renderExistingComments } from "./existing-comments.ts";
export { renderTable, inlineBody, reviewBody } from "./render.ts";
export { ReviewComment, ReviewEnvelope, Severity } from "./envelope.ts";
export { Draft, draftsDir, draftFile, readDraft, saveDraft } from "./draft.ts";
export { planReview, postReviewFromDraft, type PlannedReview, type PostResult } from "./post.ts";
export { checkoutPr, type ReviewCheckout } from "./checkout.ts";
export { reviewCheckout, type ReviewCheckoutInput } from "./run-review.ts";
export { runReviewLoop, type ReviewLoopInput } from "./loop/index.ts";
