import { isOttoComment, OTTO_MARKER } from "../store/markers.ts";
import { stripPostMarkers } from "../post-once.ts";
import type { PrComment } from "../types.ts";
import { Decision } from "./decision.ts";

/*
 * Every reply otto posts names the comment it answers in a hidden marker, with the decision. The
 * forge is the source of truth: if otto crashed after posting and before recording, the next pass
 * finds the marker and records the reply instead of answering twice.
 */

const MARKER = /<!-- otto:reply:([^\s:]+):(AGREE|BY_DESIGN|WONT_FIX) -->/g;

export function replyMarker(commentId: string, decision: Decision): string {
  return `<!-- otto:reply:${commentId}:${decision} -->`;
}

/** The body otto posts: otto's marker, the reply marker, then the text people read. */
export function replyBody(commentId: string, decision: Decision, text: string): string {
  return `${OTTO_MARKER}\n${replyMarker(commentId, decision)}\n${text.trim()}`;
}

export interface OwnReply {
  decision: Decision;
  reply: PrComment;
}

/**
 * Replies otto already posted, by the id of the comment each answers (the first one wins). With
 * `me` (the token's user) only that user's comments count: a pasted marker answers nothing.
 */
export function ownReplies(comments: readonly PrComment[], me?: string): Map<string, OwnReply> {
  const out = new Map<string, OwnReply>();
  for (const comment of comments) {
    if (!isOttoComment(comment, me)) continue;
    for (const match of comment.body.matchAll(MARKER)) {
      const id = match[1] ?? "";
      const decision = Decision.safeParse(match[2]);
      if (id && decision.success && !out.has(id)) out.set(id, { decision: decision.data, reply: comment });
    }
  }
  return out;
}

/** How otto's AGREE reply starts when a commit made the change (answer-comment.ts writes it). */
export const FIXED_IN = "Fixed in";
export const ADDRESSED_IN = "Already addressed in";

/** The commit an AGREE reply names as the change (`Fixed in abc1234: …`), or undefined when it made none. */
export function fixedIn(body: string): string | undefined {
  return new RegExp(`^(?:${FIXED_IN}|${ADDRESSED_IN}) ([0-9a-f]{7,40})\\b`, "m").exec(stripMarkers(body))?.[1];
}

/** A body without otto's hidden markers, for showing a thread to the model. */
export function stripMarkers(body: string): string {
  return stripPostMarkers(body.replaceAll(OTTO_MARKER, "").replace(MARKER, "")).trim();
}
