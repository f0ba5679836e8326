import type { PrReview } from "../../pr/index.ts";
import type { Consensus, Counts, ReviewState } from "./schemas.ts";

/** Associations whose "changes requested" binds the loop (the first consensus rule, docs/pr-review-loop.md). */
const BINDING = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

/**
 * Who still requests changes: each reviewer's latest approving, rejecting or dismissed review
 * decides (a later comment-only review does not lift a request, an approval or a dismissal does,
 * as on GitHub's PR page). Only owners, members and collaborators count.
 */
export function reviewStateOf(reviews: readonly PrReview[]): ReviewState {
  const standing = new Map<string, PrReview>();
  const ordered = [...reviews].sort((a, b) => (a.submittedAt ?? "").localeCompare(b.submittedAt ?? ""));
  for (const review of ordered) {
    if (review.state === "commented" || review.state === "pending") continue;
    standing.set(review.author.toLowerCase(), review);
  }
  const by = [...standing.values()]
    .filter((r) => r.state === "changes_requested" && BINDING.has(r.association.toUpperCase()))
    .map((r) => ({ login: r.author, association: r.association.toUpperCase(), ...(r.note ? { note: r.note } : {}) }));
  return { hasChangesRequested: by.length > 0, changesRequestedBy: by };
}

/**
 * A6: changes requested by a binding reviewer → request_changes; else P0 → needs_major_work;
 * else P1 or P2 → request_changes; else approve. Counts are over every finding, not deduplicated.
 */
export function consensusOf(counts: Counts, state: ReviewState): Consensus {
  if (state.hasChangesRequested) return "request_changes";
  if (counts.P0 > 0) return "needs_major_work";
  if (counts.P1 > 0 || counts.P2 > 0) return "request_changes";
  return "approve";
}
