/*
 * Which comments of a PR the comment flow has handled, kept bounded. A PR that anyone can comment
 * on would otherwise grow its document by one id per comment forever. The most recent
 * MAX_SEEN_IDS ids are kept; when older ones are dropped, a high-water mark of their creation time
 * (`seen_before`) goes up to the newest of them, and every comment created at or before the mark
 * counts as seen. So a dropped id can never make otto answer its comment again; the price is that
 * a comment older than the mark that was never handled (more than MAX_SEEN_IDS newer comments
 * were handled after it) is not answered either.
 */

/** Seen ids kept per PR. */
export const MAX_SEEN_IDS = 1000;

export interface SeenComments {
  ids: readonly string[];
  /** Every comment created at or before this time counts as seen (ISO time). */
  before?: string | undefined;
}

/** A list of ids (older callers, tests) or ids with the high-water mark. */
export type SeenInput = readonly string[] | SeenComments;

interface Dated {
  id: string;
  createdAt: string;
}

/** The seen comments a PR document records. */
export function seenOf(data: { seen_comment_ids: readonly string[]; seen_before?: string | undefined }): SeenComments {
  return { ids: data.seen_comment_ids, before: data.seen_before };
}

const time = (iso: string | undefined): number => (iso === undefined ? Number.NaN : Date.parse(iso));

/** A test for "this comment was handled": its id is recorded, or it is no newer than the mark. */
export function seenTest(seen: SeenInput): (comment: Dated) => boolean {
  const { ids, before } = Array.isArray(seen) ? { ids: seen as readonly string[], before: undefined } : (seen as SeenComments);
  const set = new Set(ids);
  const mark = time(before);
  return (comment) => set.has(comment.id) || (!Number.isNaN(mark) && time(comment.createdAt) <= mark);
}

/**
 * `seen` with at most `max` ids: the oldest recorded are dropped, and the mark rises to the newest
 * creation time among them (known from `comments`, the forge's list). An id the list does not
 * have any more (a deleted comment) is dropped without moving the mark.
 */
export function boundSeen(seen: SeenComments, comments: readonly Dated[], max = MAX_SEEN_IDS): SeenComments {
  if (seen.ids.length <= max) return seen;
  const dropped = seen.ids.slice(0, seen.ids.length - max);
  const created = new Map(comments.map((c) => [c.id, c.createdAt]));
  let mark = seen.before;
  for (const id of dropped) {
    const at = created.get(id);
    if (at !== undefined && !(time(at) <= time(mark))) mark = at;
  }
  return { ids: seen.ids.slice(-max), before: mark };
}
