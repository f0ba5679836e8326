import { z } from "zod";

/*
 * The pr-review prompt's answer (docs/prompts.md, "Review comments"). Line numbers are on the PR's
 * side of the diff; whether they really are inside a hunk is checked in code (classify.ts).
 */

export const Severity = z.enum(["error", "warning", "suggestion", "nitpick"]);
export type Severity = z.infer<typeof Severity>;

export const ReviewComment = z.object({
  file: z.string().min(1),
  line: z.number().int().positive(),
  severity: Severity,
  title: z.string().default(""),
  body: z.string().min(1),
  /** The team rule (docs/rules.md) the comment enforces, by id; kept only when the review was given that rule. */
  rule: z.string().nullish(),
});
export type ReviewComment = z.infer<typeof ReviewComment>;

export const ReviewEnvelope = z.object({
  summary: z.string().default(""),
  comments: z.array(ReviewComment),
});
export type ReviewEnvelope = z.infer<typeof ReviewEnvelope>;
