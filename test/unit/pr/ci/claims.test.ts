import { describe, expect, it } from "vitest";
import { CiState } from "../../../../src/pr/ci/index.ts";
import { CLAIM_TTL_MS, deadClaim, expectedUsd, honourClaims, jobId, type CiClaim } from "../../../../src/pr/ci/claims.ts";

const NOW = new Date("2026-02-06T12:00:00Z");
const usage = (usd: number) => ({ requests: 1, input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0, usd, unpriced: 0 });
const claim = (over: Partial<CiClaim> = {}): CiClaim => ({
  job: "gh-1-1",
  head: "a".repeat(40),
  at: "2026-02-06T11:30:00Z",
  attempts: 1,
  usd: 1,
  counted: false,
  released: false,
  ...over,
});

describe("claims of fix jobs", () => {
  it("a killed job's claim counts against the next job's attempts and today's spend, once", () => {
    const state = CiState.parse({ fix_attempts: 2, claims: [claim(), claim({ job: "gh-2-1", released: true })] });
    const { state: counted, honoured } = honourClaims(state, "gh-3-1", NOW);
    expect(honoured).toEqual(["gh-1-1"]);
    expect(counted.fix_attempts).toBe(3);
    expect(counted.spend?.today.usd).toBe(1);
    // Counted once: the next job does not count it again.
    const again = honourClaims(counted, "gh-4-1", NOW);
    expect(again.honoured).toEqual([]);
    expect(again.state.fix_attempts).toBe(3);
    // A job's own claim is not counted by itself.
    expect(honourClaims(state, "gh-1-1", NOW).honoured).toEqual([]);
  });

  it("a claim of an earlier UTC day adds to the total, not to today's spend", () => {
    const state = CiState.parse({ claims: [claim({ at: "2026-02-05T23:00:00Z", usd: 2 })] });
    const { state: counted } = honourClaims(state, "other", NOW);
    expect(counted.spend?.today.usd).toBe(0);
    expect(counted.spend?.total.usd).toBe(2);
  });

  it("a claimed head is freed once its claim is older than CLAIM_TTL_MS and was never released", () => {
    const head = "a".repeat(40);
    const at = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
    expect(deadClaim([claim({ at: at(CLAIM_TTL_MS - 1000) })], head, "me", NOW)).toBeUndefined();
    expect(deadClaim([claim({ at: at(CLAIM_TTL_MS + 1000) })], head, "me", NOW)?.job).toBe("gh-1-1");
    expect(deadClaim([claim({ at: at(CLAIM_TTL_MS + 1000), released: true })], head, "me", NOW)).toBeUndefined();
  });

  it("expects the dearest recorded attempt, else the day's cap over max_fix_attempts", () => {
    expect(expectedUsd(undefined, 5, 5)).toBe(1);
    const spend = {
      day: "2026-02-06",
      today: usage(1),
      total: usage(1),
      comments: [],
      fix_attempts: [0.2, 0.7].map((usd, i) => ({ attempt: i + 1, at: "x", usage: usage(usd) })),
    };
    expect(expectedUsd(spend, 5, 5)).toBe(0.7);
  });

  it("names the job by the platform's run", () => {
    expect(jobId({ GITHUB_RUN_ID: "42", GITHUB_RUN_ATTEMPT: "2" }, () => "r")).toBe("gh-42-2");
    expect(jobId({ BUILD_BUILDID: "7" }, () => "r")).toBe("ado-7-1");
    expect(jobId({}, () => "r")).toBe("job-r");
  });
});
