import { fixedIn, ownReplies, stripMarkers, threadOf } from "../../pr/comments/index.ts";
import { authorNames } from "../../pr/comments/trust.ts";
import { isOttoComment } from "../../pr/store/markers.ts";
import { authorKey, type CommentAuthor, type PrComment, type PrInfo, type PrReview } from "../../pr/types.ts";
import { rememberedRules } from "./remember.ts";
import { cap, type Signal, type SignalKind } from "./signal.ts";

/*
 * Pure: the signals of one PR, from its comments and reviews as the backend maps them. Who may
 * teach is decided before (collect.ts, through otto's trust gate for PR comments): `trusted`
 * answers for a comment id, and for the PR's author under PR_AUTHOR.
 */

/** The key `trusted` answers the PR's author under (they apply or dismiss otto's /pr-review comments). */
export const PR_AUTHOR = "pr-author";

export interface PrActivity {
  pr: PrInfo;
  comments: readonly PrComment[];
  reviews: readonly PrReview[];
  /** The token's user: only its comments are otto's. */
  me?: string | undefined;
  /** Whether the author of a comment (by id; PR_AUTHOR for the PR's author) has write access. */
  trusted: (commentId: string) => boolean;
}

const prKey = (pr: PrInfo): string => `${pr.repo}#${pr.number}`;
const signalId = (pr: PrInfo, commentId: string, kind: SignalKind): string => `${pr.provider}:${prKey(pr)}:${commentId}:${kind}`;

const sameAuthor = (a: CommentAuthor, b: CommentAuthor): boolean => authorKey(a) === authorKey(b);

/** A thread that opens and closes: an inline comment, or any Azure DevOps thread. GitHub conversation comments have no state. */
const hasThreadState = (pr: PrInfo, c: PrComment): boolean => c.kind === "inline" || pr.provider === "ado";

const words = (c: PrComment): string => cap(stripMarkers(c.body));

const base = (pr: PrInfo, c: PrComment, kind: SignalKind, author: string) => ({
  id: signalId(pr, c.id, kind),
  kind,
  pr: prKey(pr),
  url: c.url ?? pr.url,
  author,
  at: c.createdAt,
  ...(c.path ? { path: c.path } : {}),
  ...(c.line ? { line: c.line } : {}),
});

export function extractSignals(activity: PrActivity): Signal[] {
  return [...answeredSignals(activity), ...reviewSignals(activity), ...rememberSignals(activity)];
}

/**
 * Reviewer comments otto answered: AGREE with a commit, then the thread resolved or the reviewer
 * approving after the answer (agreed-fixed); BY_DESIGN or WONT_FIX that the reviewer pushed back
 * on, by reopening the thread or replying after the answer (pushed-back: the rule is what they wanted).
 */
function answeredSignals({ pr, comments, reviews, me, trusted }: PrActivity): Signal[] {
  const byId = new Map(comments.map((c) => [c.id, c]));
  const out: Signal[] = [];
  for (const [id, { decision, reply }] of ownReplies(comments, me)) {
    const comment = byId.get(id);
    if (!comment || isOttoComment(comment, me) || !trusted(comment.id)) continue;
    const later = threadOf(comment, comments).filter(
      (c) => c.createdAt > reply.createdAt && !isOttoComment(c, me) && sameAuthor(c, comment) && trusted(c.id),
    );
    const followUp = later.length > 0 ? cap(later.map(words).join("\n\n")) : undefined;
    const answer = `${decision}: ${cap(stripMarkers(reply.body))}`;
    if (decision === "AGREE") {
      if (!fixedIn(reply.body)) continue;
      const names = new Set(authorNames(comment));
      const approved = reviews.some(
        (r) => r.state === "approved" && names.has(r.author.toLowerCase()) && (!r.submittedAt || r.submittedAt >= reply.createdAt),
      );
      if (!comment.resolved && !approved) continue;
      out.push({
        ...base(pr, comment, "agreed-fixed", comment.author),
        comment: words(comment),
        answer,
        ...(followUp ? { followUp } : {}),
      });
      continue;
    }
    const reopened = hasThreadState(pr, comment) && !comment.resolved;
    if (!reopened && !followUp) continue;
    out.push({ ...base(pr, comment, "pushed-back", comment.author), comment: words(comment), answer, ...(followUp ? { followUp } : {}) });
  }
  return out;
}

/**
 * otto's /pr-review comments (its own inline thread roots that answer nothing) the PR's author
 * applied (the lines changed in a later commit: GitHub's outdated comment; Azure DevOps "fixed")
 * or dismissed (closed without a change: won't fix, by design, closed; on GitHub resolved while
 * its lines stayed).
 */
function reviewSignals({ pr, comments, me, trusted }: PrActivity): Signal[] {
  if (!trusted(PR_AUTHOR)) return [];
  const out: Signal[] = [];
  for (const c of comments) {
    if (c.kind !== "inline" || c.inReplyTo !== undefined || !isOttoComment(c, me) || ownReplies([c], me).size > 0) continue;
    const applied = c.outdated === true || c.resolution === "resolved";
    const dismissed = !applied && c.resolved;
    if (!applied && !dismissed) continue;
    const answers = threadOf(c, comments).filter((x) => x.id !== c.id && !isOttoComment(x, me) && trusted(x.id));
    out.push({
      ...base(pr, c, applied ? "review-applied" : "review-dismissed", pr.author),
      comment: words(c),
      ...(answers.length > 0 ? { followUp: cap(answers.map((x) => `${x.author}: ${words(x)}`).join("\n\n")) } : {}),
    });
  }
  return out;
}

/** `/otto remember <rule>` in a comment by someone with write access (otto's own comments never count). */
function rememberSignals({ pr, comments, me, trusted }: PrActivity): Signal[] {
  const out: Signal[] = [];
  for (const c of comments) {
    if (isOttoComment(c, me) || !trusted(c.id)) continue;
    rememberedRules(c.body).forEach((rule, i) => {
      out.push({
        ...base(pr, c, "remember", c.author),
        id: `${signalId(pr, c.id, "remember")}${i > 0 ? `:${i}` : ""}`,
        comment: words(c),
        rule,
      });
    });
  }
  return out;
}
