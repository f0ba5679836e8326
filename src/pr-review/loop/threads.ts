import { OTTO_MARKER, type PrComment } from "../../pr/index.ts";
import { LOOP_MARKER } from "./report.ts";
import type { CommentsReply, Finding } from "./schemas.ts";

/** An unresolved reviewer comment and its replies, as the comments analyzer sees it. */
export interface OpenThread {
  id: string;
  kind: PrComment["kind"];
  author: string;
  file?: string;
  line?: number;
  body: string;
  replies: Array<{ author: string; body: string }>;
}

const BODY_CHARS = 2_000;

const ours = (c: PrComment): boolean => c.body.includes(LOOP_MARKER) || c.body.includes(OTTO_MARKER);

/**
 * Root comments that are unresolved and not otto's, with their replies (otto's replies included:
 * they say what was done). Comments of resolved threads, and otto's own reports, never count.
 * Only comments by `trusted` authors are read (src/pr/comments/trust.ts): a stranger's comment
 * neither reaches the analyzer nor holds the loop back.
 */
export function openThreads(comments: readonly PrComment[], trusted: (comment: PrComment) => boolean): OpenThread[] {
  const replies = new Map<string, PrComment[]>();
  for (const c of comments) {
    if (c.inReplyTo === undefined || !trusted(c)) continue;
    replies.set(c.inReplyTo, [...(replies.get(c.inReplyTo) ?? []), c]);
  }
  return comments
    .filter((c) => c.inReplyTo === undefined && !c.resolved && !ours(c) && trusted(c))
    .map((c) => ({
      id: c.id,
      kind: c.kind,
      author: c.author,
      ...(c.path ? { file: c.path } : {}),
      ...(c.line !== undefined ? { line: c.line } : {}),
      body: c.body.slice(0, BODY_CHARS),
      replies: (replies.get(c.id) ?? []).map((r) => ({ author: r.author, body: r.body.slice(0, BODY_CHARS) })),
    }));
}

/**
 * Findings from the analyzer's judgement. Ids are `THREAD-<root comment id>`, stable across
 * rounds. A thread the analyzer skipped counts as a P1 request: an unresolved comment blocks
 * until someone says otherwise. Entries for ids otto did not list are ignored.
 */
export function threadFindings(threads: readonly OpenThread[], reply: CommentsReply | undefined): Finding[] {
  const judged = new Map((reply?.threads ?? []).map((t) => [t.id, t]));
  const out: Finding[] = [];
  for (const t of threads) {
    const verdict = judged.get(t.id);
    if (verdict && !verdict.actionable) continue;
    out.push({
      id: `THREAD-${t.id}`,
      priority: verdict?.priority ?? "P1",
      category: "review-thread",
      file: t.file ?? "",
      line: t.line ?? null,
      title: verdict?.title ?? "Unresolved review comment",
      description: `@${t.author}: ${t.body.slice(0, 200).replace(/\s*\n\s*/g, " ")}`,
      suggestion: verdict?.suggestion ?? "",
      source: { type: "human", name: t.author, reviewId: t.id },
    });
  }
  return out;
}
