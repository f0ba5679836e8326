import { z } from "zod";
import type { CommentResolution } from "../types.ts";

/** What the model decided about one reviewer comment (prompts/pr-comment-respond.md). */
export const Decision = z.enum(["AGREE", "BY_DESIGN", "WONT_FIX"]);
export type Decision = z.infer<typeof Decision>;

/** The pr-comment-respond envelope. */
export const CommentVerdict = z.object({
  decision: Decision,
  reply: z.string().trim().min(1, "the reply to post must not be empty"),
  /** AGREE: a commit subject for the change; "" when nothing changed. */
  fix_description: z.string().default(""),
  /** AGREE with no change: the commit on the PR's branch that already addresses the comment; "" when none. */
  addressed_by: z.string().default(""),
});
export type CommentVerdict = z.infer<typeof CommentVerdict>;

/** How the thread is closed: Azure DevOps shows fixed / byDesign / wontFix; GitHub just resolves. */
export const RESOLUTION: Record<Decision, CommentResolution> = {
  AGREE: "resolved",
  BY_DESIGN: "by_design",
  WONT_FIX: "wont_fix",
};
