import { describe, expect, it } from "vitest";
import { Account, messageUsage } from "../../../../src/cost/index.ts";
import type { PrInfo } from "../../../../src/pr/index.ts";
import { renderSpend, spendLine } from "../../../../src/pr-review/render.ts";
import { renderSummary, type RoundRecord } from "../../../../src/pr-review/loop/summary.ts";

const pr = { number: 1, repo: "octo/app", title: "Greet", url: "https://github.com/octo/app/pull/1" } as PrInfo;
const call = (usd: number) => messageUsage({ tokens: { input: 100_000, output: 10_000 }, cost: usd }, true);

describe("the loop's summary: spend", () => {
  it("names the spend in all and per round; a budget stop says spent / limit, what was left undone and how to go on", () => {
    const run = new Account("pr-review loop github-octo-app-1", { budget: { usd: 2 } });
    const one = run.child("round 1");
    for (let i = 0; i < 4; i++) one.child("reviewer-1 mock/m1").charge("mock/m1", call(0.45));
    const two = run.child("round 2");
    two.child("reviewer-1 mock/m1").charge("mock/m1", call(0.45));
    const rounds: RoundRecord[] = [
      { round: 1, next: "fixing", comments: [], account: one, fix: { fixed: 1, rejected: 0, pushed: "abcdef0123" } },
      { round: 2, next: "stopped: the loop's budget was reached", comments: [], account: two },
    ];
    const text = renderSummary({
      pr,
      rounds,
      outcome: `Stopped in round 2: ${run.stopped?.message ?? ""}`,
      stuck: [],
      notes: [],
      links: new Map(),
      spend: { usage: run.usage, line: run.spentLine() },
      budgetStop: {
        message: run.stopped?.message ?? "",
        undone: "the review of round 2; rounds 3-3 did not run.",
        fix: "Run /pr-review … --loop again, with a higher --budget.",
      },
    });
    expect(text).toContain("Stopped in round 2: Budget reached: spent $2.25 of $2.00 (pr-review loop github-octo-app-1).");
    expect(text).toContain("Spent: 550.0k tokens, $2.25 (spent $2.25 of $2.00).");
    expect(text).toContain("Left undone: the review of round 2; rounds 3-3 did not run.");
    expect(text).toContain("| 1 | - | - | - | - | - | - | 1 fixed, 0 rejected, pushed abcdef0 | 440.0k tokens, $1.80 |");
    expect(text).toContain("| 2 | - | - | - | - | - | - | - | 110.0k tokens, $0.45 |");
  });

  it("the one-shot review: the total first, a row per reviewer model; unpriced calls cost unknown", () => {
    const review = new Account("pr-review github-octo-app-5");
    review.child("reviewer mock/m2").charge("mock/m2", messageUsage({ tokens: { input: 1000, output: 200 }, cost: 0.006 }, true));
    review.child("reviewer local/free").charge("local/free", messageUsage({ tokens: { input: 500, output: 50 } }, false));
    expect(spendLine(5, review.usage)).toBe("Review of PR #5: 1.75k tokens, ≥ $0.0060.");
    const table = renderSpend(review.byModel, review.usage);
    expect(table).toContain("| mock/m2 | 1 | 1.00k | 0 | 0 | 200 | 1.20k | $0.0060 |");
    expect(table).toContain("| local/free | 1 | 500 | 0 | 0 | 50 | 550 | cost unknown |");
    expect(table).toContain("| **Total** | 2 | 1.50k | 0 | 0 | 250 | 1.75k | ≥ $0.0060 |");
  });
});
