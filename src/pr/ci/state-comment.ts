import { redactDeep } from "../../core/index.ts";
import type { PrBackend } from "../backend.ts";
import type { PrComment, PrInfo } from "../types.ts";
import { holds, mergeState } from "./merge-state.ts";
import { CiState, findState, renderState, type FoundState, type StateSlot } from "./state.ts";

/*
 * The I/O of otto's state comment (state.ts): read from the PR's comments, written back in place.
 * A forge without edits, or an edit that fails, gets a new comment: the reader takes the newest.
 * Every write reads the comment again, merges the job's changes into it (merge-state.ts), writes,
 * and reads it back: when another job's write landed in between and lost this one's changes, it
 * merges and writes again, up to WRITE_TRIES times.
 */

export const WRITE_TRIES = 5;

export interface StateStore {
  found: FoundState;
  /** The token's user, as getComments' authors are compared with it. */
  me: string;
  comments: PrComment[];
  /**
   * Writes the job's state: `mine` (what the job means to write) over the state on the forge now,
   * `base` the state the job started from, `release` the claims this write ends. Returns what was written.
   */
  save(base: CiState, mine: CiState, release?: readonly string[]): Promise<CiState>;
}

export async function openStateStore(
  backend: PrBackend,
  pr: PrInfo,
  secrets: readonly string[],
  log: (message: string) => void,
  slot: StateSlot = "main",
): Promise<StateStore> {
  // No identity, no job: without it otto trusts none of its state comments, and a fix that keeps
  // failing would start again on every run (max_fix_attempts, the day's spend and handled heads lost).
  const [me, comments] = await Promise.all([backend.currentUser(pr), backend.getComments(pr)]);
  const found = findState(comments, me, slot);
  for (const line of found.ignored) log(line);
  const read = async (): Promise<FoundState> => findState(await backend.getComments(pr), me, slot);
  const write = async (commentId: string | undefined, state: CiState): Promise<void> => {
    const body = renderState(state, secrets, slot);
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
  };
  const store: StateStore = {
    found,
    me,
    comments,
    async save(rawBase, rawMine, release = []) {
      // Compared with what the forge holds, which is redacted.
      const base = CiState.parse(redactDeep(rawBase, secrets));
      const mine = CiState.parse(redactDeep(rawMine, secrets));
      let fresh = await read();
      // Nothing to add (a flow that changed nothing): no write, no edit on the PR.
      if (holds({ base, mine, release }, fresh.state)) return fresh.state;
      for (let tries = 1; ; tries += 1) {
        const next = mergeState({ base, mine, fresh: fresh.state, release });
        await write(fresh.commentId, next);
        // Read back: a write of another job between the read and this write would have replaced it.
        fresh = await read();
        if (holds({ base, mine, release }, fresh.state) || tries >= WRITE_TRIES) {
          if (tries >= WRITE_TRIES && !holds({ base, mine, release }, fresh.state))
            log(`otto's state comment changed under this job ${tries} times; the last write may have lost some of its changes`);
          store.found = { ...store.found, state: fresh.state, ...(fresh.commentId ? { commentId: fresh.commentId } : {}) };
          return fresh.state;
        }
      }
    },
  };
  return store;
}
