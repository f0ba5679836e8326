import { z } from "zod";

/*
 * The review loop's data shapes (docs/pr-review-loop.md, "Data shapes"). What models send is
 * parsed leniently (ids, counts and names are recomputed in code); what otto builds is typed strictly.
 */

export const Priority = z.enum(["P0", "P1", "P2", "P3"]);
export type Priority = z.infer<typeof Priority>;

export const PRIORITIES: readonly Priority[] = Priority.options;

/** A finding as a reviewer model writes it; `id`, counts and `source` are ignored (otto computes them). */
export const ModelFinding = z.object({
  priority: Priority,
  category: z.string().min(1),
  file: z.string().default(""),
  line: z.number().int().nonnegative().nullable().optional(),
  title: z.string().min(1),
  description: z.string().default(""),
  suggestion: z.string().default(""),
  /** The team rule (docs/rules.md) the finding enforces, by id. */
  rule: z.string().nullish(),
});
export type ModelFinding = z.infer<typeof ModelFinding>;

/** A2: one reviewer's answer. */
export const ReviewerReply = z.object({
  conclusion: z.enum(["approve", "request_changes", "needs_major_work"]),
  findings: z.array(ModelFinding),
  fullReport: z.string().default(""),
});
export type ReviewerReply = z.infer<typeof ReviewerReply>;

/** A3 (the model's part): how each unresolved thread the analyzer was shown should count. */
export const CommentsReply = z.object({
  threads: z.array(
    z.object({
      /** The thread's root comment id, as otto listed it. */
      id: z.string().min(1),
      /** False when the comment no longer asks for anything (thanks, an answered question). */
      actionable: z.boolean(),
      priority: Priority,
      title: z.string().min(1),
      suggestion: z.string().default(""),
    }),
  ),
  fullReport: z.string().default(""),
});
export type CommentsReply = z.infer<typeof CommentsReply>;

/** A5: the fix session's account of every issue it was given. */
export const FixReply = z.object({
  fixedIssues: z.array(z.object({ findingId: z.string().min(1), description: z.string().default("") })),
  rejectedIssues: z.array(z.object({ findingId: z.string().min(1), reason: z.string().default("") })),
});
export type FixReply = z.infer<typeof FixReply>;

/** A1: a finding as otto keeps it, id computed in code. */
export interface Finding {
  id: string;
  priority: Priority;
  category: string;
  file: string;
  line: number | null;
  title: string;
  description: string;
  suggestion: string;
  source: { type: "agent" | "human"; name: string; reviewId: string | null };
  /** The team rule it enforces, when the reviewer cited one it was given. */
  rule?: string;
}

export type Counts = Record<Priority, number>;

/** Computed in code from the forge's reviews, never by a model (A3 reviewState). */
export interface ReviewState {
  hasChangesRequested: boolean;
  /** `note`: the forge's words for the verdict (Azure DevOps votes), shown instead of the association. */
  changesRequestedBy: Array<{ login: string; association: string; note?: string }>;
}

export type Consensus = "approve" | "request_changes" | "needs_major_work";

/** A4: what the fix session gets. */
export interface FixPayload {
  prNumber: number;
  round: number;
  issuesToFix: Finding[];
  optionalIssues: Finding[];
}
