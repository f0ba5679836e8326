import type { PrBackend } from "../backend.ts";
import type { PrComment, PrInfo } from "../types.ts";
import { findState, renderState, type CiState, type FoundState } from "./state.ts";

/*
 * The I/O of otto's state comment (state.ts): read from the PR's comments, written back in place.
 * A forge without edits, or an edit that fails, gets a new comment: the reader takes the newest.
 */

export interface StateStore {
  found: FoundState;
  /** The token's user, as getComments' authors are compared with it. */
  me: string;
  comments: PrComment[];
  save(state: CiState): Promise<void>;
}

export async function openStateStore(
  backend: PrBackend,
  pr: PrInfo,
  secrets: readonly string[],
  log: (message: string) => void,
): Promise<StateStore> {
  // No identity, no job: without it otto trusts none of its state comments, and a fix that keeps
  // failing would start again on every run (max_fix_attempts, the day's spend and handled heads lost).
  const [me, comments] = await Promise.all([backend.currentUser(pr), backend.getComments(pr)]);
  const found = findState(comments, me);
  for (const line of found.ignored) log(line);
  let commentId = found.commentId;
  return {
    found,
    me,
    comments,
    async save(state) {
      const body = renderState(state, secrets);
      if (commentId && backend.editComment) {
        try {
          await backend.editComment(pr, commentId, body);
          return;
        } catch (error) {
          log(
            `could not update otto's state comment ${commentId} (${error instanceof Error ? error.message : String(error)}); posting a new one`,
          );
        }
      }
      await backend.postComment(pr, body);
      // The new comment's id is found by the next run (the newest of the token user's state comments wins).
      if (!backend.editComment) return;
      const again = findState(await backend.getComments(pr), me);
      commentId = again.commentId;
    },
  };
}
