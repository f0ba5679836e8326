import { authoredBy, type PrComment } from "../types.ts";
import { seenTest, type SeenInput } from "../store/seen.ts";
import { isOttoComment, unhandledComments } from "../store/markers.ts";
import type { Decision } from "./decision.ts";
import { ownReplies } from "./reply-marker.ts";
import type { TrustDecision } from "./trust.ts";

/*
 * Which comments of a PR otto answers now, as a pure function of every comment on the PR and the
 * document's seen ids. Otto's own comments (OTTO_MARKER, posted by the token's user) never count;
 * other comments by the token's user (the person otto works for) and by bots are recorded as seen
 * and left alone, except the configured review bot (Azure DevOps MerlinBot) when it is switched on.
 * Everyone else is answered only when trusted (trust.ts): an untrusted comment is left for a
 * person, and neither covers nor is covered by the comments of its thread. Also which comments'
 * words a session may see (trustedForContext) and the skips in a log line (describeSkips).
 */

export interface BotPolicy {
  /**
   * Identity ids of the configured review bot (pr.providers.ado.bot_ids). Never its display name:
   * anyone may call themselves MerlinBot.
   */
  ids: readonly string[];
  /** Answer the configured bot like a reviewer (pr.providers.ado.merlinbot). */
  handle: boolean;
}

export interface SelectInput {
  comments: readonly PrComment[];
  seen: SeenInput;
  /** The user the token belongs to (GitHub login, Azure DevOps identity id); unknown: undefined. */
  me?: string | undefined;
  bot: BotPolicy;
  /** The trust decision of each reviewer comment by id (resolve-trust.ts); a comment missing here is not trusted. */
  trust: ReadonlyMap<string, TrustDecision>;
}

export type SkipReason = "own" | "bot" | "covered" | "untrusted";

export interface Recovered {
  comment: PrComment;
  decision: Decision;
  /** Otto's reply found on the forge. */
  reply: PrComment;
}

export interface CommentPlan {
  /** To answer one by one, oldest first: the newest new comment of each thread. */
  handle: PrComment[];
  /** Answered in an earlier pass that crashed before recording: record (and resolve), never answer again. */
  recovered: Recovered[];
  /** Recorded as seen without an answer. `covered`: an older comment of a thread whose newest one is answered. */
  skipped: Array<{ comment: PrComment; reason: SkipReason }>;
}

const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The configured review bot by its identity id; other bots by GitHub Apps' `<name>[bot]` login (a
 * suffix no person's login can have). A display name only ever makes a comment a bot's to skip.
 */
export function botKind(comment: Pick<PrComment, "author" | "authorId">, bot: BotPolicy): "review_bot" | "bot" | undefined {
  if (comment.authorId !== undefined && bot.ids.some((id) => same(id, comment.authorId ?? ""))) return "review_bot";
  return /\[bot\]$/i.test(comment.author) ? "bot" : undefined;
}

/**
 * The thread a comment belongs to. Azure DevOps ids are `<thread>/<comment>`; elsewhere a reply
 * points at the comment it answers (GitHub: the thread's first comment) and a comment without
 * `inReplyTo` starts its own thread.
 */
export function threadKey(comment: PrComment, byId: ReadonlyMap<string, PrComment>): string {
  const ado = /^(\d+)\/\d+$/.exec(comment.id);
  if (ado) return `thread-${ado[1]}`;
  let current = comment;
  const visited = new Set<string>();
  while (current.inReplyTo !== undefined && !visited.has(current.id)) {
    visited.add(current.id);
    const parent = byId.get(current.inReplyTo);
    if (!parent) return current.inReplyTo;
    current = parent;
  }
  return current.id;
}

/** Every comment of the comment's thread, oldest first (the first one is the thread's root). */
export function threadOf(comment: PrComment, comments: readonly PrComment[]): PrComment[] {
  const byId = new Map(comments.map((c) => [c.id, c]));
  const key = threadKey(comment, byId);
  return comments.filter((c) => threadKey(c, byId) === key).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** The comment's author is the token's user: the person otto works for. */
export const isMine = (comment: PrComment, me: string | undefined): boolean => authoredBy(comment, me);

/**
 * Comments whose authors the trust check must judge: new, unresolved, not otto's, not the token
 * user's, not a bot's (the configured review bot is trusted by its setting), not answered before.
 */
export function reviewerComments(input: Omit<SelectInput, "trust">): PrComment[] {
  const answered = ownReplies(input.comments, input.me);
  return unhandledComments(input.comments, input.seen, input.me).filter(
    (c) => !answered.has(c.id) && !isMine(c, input.me) && botKind(c, input.bot) === undefined,
  );
}

export function selectComments(input: SelectInput): CommentPlan {
  const { comments, seen, me, bot, trust } = input;
  const answered = ownReplies(comments, me);
  const byId = new Map(comments.map((c) => [c.id, c]));
  const plan: CommentPlan = { handle: [], recovered: [], skipped: [] };
  const newest = new Map<string, PrComment>();
  const wasSeen = seenTest(seen);
  // Answered and resolved before a crash: unhandledComments leaves resolved threads out, but the history should have them.
  for (const comment of comments) {
    const reply = answered.get(comment.id);
    if (comment.resolved && reply && !wasSeen(comment) && !isOttoComment(comment, me)) {
      plan.recovered.push({ comment, decision: reply.decision, reply: reply.reply });
    }
  }
  for (const comment of unhandledComments(comments, seen, me)) {
    const reply = answered.get(comment.id);
    if (reply) {
      plan.recovered.push({ comment, decision: reply.decision, reply: reply.reply });
      continue;
    }
    if (isMine(comment, me)) {
      plan.skipped.push({ comment, reason: "own" });
      continue;
    }
    const kind = botKind(comment, bot);
    if (kind === "bot" || (kind === "review_bot" && !bot.handle)) {
      plan.skipped.push({ comment, reason: "bot" });
      continue;
    }
    if (kind === undefined && trust.get(comment.id)?.trusted !== true) {
      plan.skipped.push({ comment, reason: "untrusted" });
      continue;
    }
    const key = threadKey(comment, byId);
    const previous = newest.get(key);
    if (previous && previous.createdAt > comment.createdAt) {
      plan.skipped.push({ comment, reason: "covered" });
      continue;
    }
    if (previous) plan.skipped.push({ comment: previous, reason: "covered" });
    newest.set(key, comment);
  }
  plan.handle = [...newest.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  return plan;
}

/** Whether a comment's words may reach a session: otto's and the user's own, the enabled review bot's, trusted authors'. */
export function trustedForContext(
  comment: PrComment,
  trust: ReadonlyMap<string, TrustDecision>,
  me: string | undefined,
  bot: BotPolicy,
): boolean {
  if (isOttoComment(comment, me) || isMine(comment, me)) return true;
  const kind = botKind(comment, bot);
  if (kind !== undefined) return kind === "review_bot" && bot.handle;
  return trust.get(comment.id)?.trusted === true;
}

export function describeSkips(skipped: ReadonlyArray<{ reason: SkipReason }>): string {
  const counts = new Map<SkipReason, number>();
  for (const s of skipped) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
  const label: Record<SkipReason, string> = {
    own: "by the token's user",
    bot: "by bots",
    covered: "answered with a newer comment of their thread",
    untrusted: "by people otto does not act for",
  };
  return [...counts].map(([reason, n]) => `${n} ${label[reason]}`).join(", ");
}
