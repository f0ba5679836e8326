import { describe, expect, it } from "vitest";
import type { PrBackend } from "../../../../src/pr/backend.ts";
import { CiState, renderState } from "../../../../src/pr/ci/index.ts";
import { openStateStore } from "../../../../src/pr/ci/state-comment.ts";
import { mergeState } from "../../../../src/pr/ci/merge-state.ts";
import type { PrComment } from "../../../../src/pr/index.ts";
import { samplePr } from "../sample-pr.ts";

/*
 * Two jobs of one PR writing otto's state comment at once (Azure's fix job and comment pipeline):
 * every interleaving of their forge calls, and the state that results holds both jobs' changes.
 */

const ME = "otto-bot";
const H0 = "0".repeat(40);
const H1 = "1".repeat(40);
const usage = (usd: number) => ({ requests: 1, input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0, usd, unpriced: 0 });
const spend = (usd: number) => ({ day: "2026-02-06", today: usage(usd), total: usage(usd + 1), fix_attempts: [], comments: [] });

/** The forge's comments in memory; every call of a job waits for its turn in `schedule`. */
function forge(initial: CiState | undefined, schedule: string[]) {
  const comments: PrComment[] = [];
  let next = 1;
  const post = (body: string) =>
    comments.push({ id: `c${next++}`, kind: "conversation", author: ME, body, createdAt: "2026-02-06T10:00:00Z", resolved: false });
  if (initial) post(renderState(initial, []));
  const done = new Set<string>();
  let pos = 0;
  const turn = async (job: string): Promise<void> => {
    // A job goes when the schedule names it, or once the schedule is spent or names a finished job.
    while (pos < schedule.length && schedule[pos] !== job && !done.has(schedule[pos]!)) await new Promise((r) => setImmediate(r));
    pos += 1;
  };
  const backend = (job: string): PrBackend =>
    ({
      currentUser: async () => ME,
      getComments: async () => {
        await turn(job);
        return comments.map((c) => ({ ...c }));
      },
      editComment: async (_pr: unknown, id: string, body: string) => {
        await turn(job);
        const c = comments.find((x) => x.id === id);
        if (!c) throw new Error(`no comment ${id}`);
        c.body = body;
      },
      postComment: async (_pr: unknown, body: string) => {
        await turn(job);
        post(body);
      },
    }) as unknown as PrBackend;
  return { comments, backend, finish: (job: string) => done.add(job) };
}

const base = CiState.parse({ fix_attempts: 1, handled_heads: [H0], seen_comment_ids: ["r0"], spend: spend(0.3) });
const claim = { job: "fix-job", head: H1, at: "2026-02-06T10:00:00Z", attempts: 1, usd: 0.5, counted: false, released: false };
/** The fix job: claims H1 (an attempt, $0.5 expected), then releases the claim with its real counts. */
const fixClaim = CiState.parse({ ...base, handled_heads: [H0, H1], claims: [claim] });
const fixDone = CiState.parse({ ...fixClaim, fix_attempts: 2, fix_sha: "f".repeat(40), spend: spend(0.6) });
/** The comment job: answers two comments, one answer failed once. */
const answered = CiState.parse({ ...base, seen_comment_ids: ["r0", "r1", "r2"], comment_failures: { r3: 1 }, spend: spend(0.4) });

/** Every schedule of `n` turns between two jobs. */
const schedules = (n: number): string[][] =>
  Array.from({ length: 2 ** n }, (_, i) => Array.from({ length: n }, (_, b) => ((i >> b) & 1 ? "A" : "B")));

async function race(initial: CiState | undefined, schedule: string[]) {
  const f = forge(initial, schedule);
  const pr = samplePr();
  const a = openStateStore(f.backend("A"), pr, [], () => {}, "build").then(async (store) => {
    const claimed = await store.save(base, fixClaim);
    await store.save(claimed, fixDone, ["fix-job"]);
    f.finish("A");
  });
  const b = openStateStore(f.backend("B"), pr, [], () => {}, "comments").then(async (store) => {
    await store.save(base, answered);
    f.finish("B");
  });
  await Promise.all([a, b]);
  const open = await openStateStore(f.backend("check"), pr, [], () => {});
  return open.found.state;
}

describe("otto's state comment under two jobs at once", () => {
  it("every interleaving of a fix job's claim and release with a comment job's write keeps both jobs' changes", async () => {
    for (const initial of [base, undefined]) {
      for (const schedule of schedules(9)) {
        const state = await race(initial, schedule);
        const where = `${initial ? "with" : "without"} a state comment, schedule ${schedule.join("")}`;
        expect(state.handled_heads, where).toEqual(expect.arrayContaining([H1]));
        expect(state.seen_comment_ids, where).toEqual(expect.arrayContaining(["r1", "r2"]));
        expect(state.comment_failures, where).toEqual({ r3: 1 });
        expect(state.fix_attempts, where).toBe(2);
        expect(state.fix_sha, where).toBe("f".repeat(40));
        expect(state.spend?.today.usd, where).toBe(0.6);
        // The claim is released by its job's last write, whatever came between.
        expect(
          state.claims.map((c) => c.released),
          where,
        ).toEqual([true]);
      }
    }
  });

  it("a write that read the state before another job's claim does not erase the claim", () => {
    const merged = mergeState({ base, mine: answered, fresh: fixClaim });
    expect(merged.claims).toEqual([{ ...claim, released: false }]);
    expect(merged.handled_heads).toEqual([H0, H1]);
    expect(merged.seen_comment_ids).toEqual(["r0", "r1", "r2"]);
    // Fields the comment job did not change keep the forge's value.
    const fixed = mergeState({ base, mine: answered, fresh: fixDone });
    expect(fixed.fix_sha).toBe("f".repeat(40));
    expect(fixed.fix_attempts).toBe(2);
  });
});
