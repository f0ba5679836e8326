import { describe, expect, it } from "vitest";
import { CiState, findState, parseState, renderState, stateOf, withState } from "../../../../src/pr/ci/index.ts";
import { newDocument } from "../../../../src/pr/commands/add.ts";
import { OTTO_MARKER, type PrComment } from "../../../../src/pr/index.ts";
import { settleProbe } from "../../../../src/pr/ci/flake-state.ts";
import { samplePr } from "../sample-pr.ts";

const SECRET = "ghp_plantedSecretToken0123456789abcdefXYZ";
const HEAD = "0123456789abcdef0123456789abcdef01234567";

const state = (over: Partial<CiState> = {}): CiState =>
  CiState.parse({
    fix_attempts: 2,
    fix_sha: "f".repeat(40),
    fix_base_sha: HEAD,
    handled_heads: [HEAD],
    seen_comment_ids: ["issue-7"],
    ...over,
  });
const comment = (id: string, author: string, body: string): PrComment => ({
  id,
  kind: "conversation",
  author,
  body,
  createdAt: "2026-02-06T10:00:00Z",
  resolved: false,
});

describe("otto's CI state comment", () => {
  it("round trip: render → parse gives the same state; the body carries otto's marker and a line for people", () => {
    const body = renderState(state(), []);
    expect(body.startsWith(OTTO_MARKER)).toBe(true);
    expect(body).toMatch(/<!-- otto:state v1 [A-Za-z0-9+/=]+ -->/);
    expect(body).toContain("2 fix attempt(s); last fix `fffffff`");
    const parsed = parseState(body);
    expect(parsed).toEqual({ ok: true, state: state(), slot: "main" });
  });

  it("redacts secrets before they are written", () => {
    const body = renderState(state({ gave_up: `token ${SECRET}` }), [SECRET]);
    const decoded = Buffer.from(/otto:state v1 (\S+) -->/.exec(body)![1]!, "base64").toString("utf8");
    expect(decoded).not.toContain(SECRET);
    expect(decoded).toContain("[REDACTED]");
    expect(body).not.toContain(SECRET);
  });

  it("only the token user's comment counts: a pasted marker by someone else is ignored and said so", () => {
    const forged = renderState(state({ handled_heads: ["a".repeat(40)], gave_up: "2026-01-01T00:00:00Z" }), []);
    const found = findState([comment("issue-1", "mallory", forged)], "otto-bot");
    expect(found.state).toEqual(CiState.parse({}));
    expect(found.commentId).toBeUndefined();
    expect(found.ignored[0]).toContain("a state comment by mallory (issue-1) is ignored");
    // Without knowing the token's user nothing can be told from a forgery.
    expect(findState([comment("issue-2", "otto-bot", forged)], undefined).commentId).toBeUndefined();
  });

  it("the newest of the token user's state comments wins; an unreadable one is replaced in place", () => {
    const older = renderState(state({ fix_attempts: 1 }), []);
    const newer = renderState(state({ fix_attempts: 3 }), []);
    const found = findState(
      [comment("issue-1", "otto-bot", older), comment("issue-2", "someone", "hi"), comment("issue-3", "Otto-Bot", newer)],
      "otto-bot",
    );
    expect(found.state.fix_attempts).toBe(3);
    expect(found.commentId).toBe("issue-3");
    const broken = findState([comment("issue-4", "otto-bot", `${OTTO_MARKER}\n<!-- otto:state v1 bm90IGpzb24= -->`)], "otto-bot");
    expect(broken.commentId).toBe("issue-4");
    expect(broken.state.fix_attempts).toBe(0);
    expect(broken.ignored[0]).toContain("unreadable");
    expect(parseState("no marker here")).toBeUndefined();
    expect(parseState(`<!-- otto:state v1 ${Buffer.from(JSON.stringify({ fix_attempts: -1 })).toString("base64")} -->`)).toMatchObject({
      ok: false,
    });
  });

  it("withState and stateOf carry the fields between the state and a PR document, handled heads kept", () => {
    const doc = newDocument(samplePr(), "github-octo-app-42", 5, "2026-02-06T10:00:00Z");
    const seeded = withState(doc, state());
    expect(seeded.data).toMatchObject({
      fix_attempts: 2,
      fix_base_sha: HEAD,
      seen_comment_ids: ["issue-7"],
      max_fix_attempts: 5,
      repo: "octo/app",
    });
    const after = stateOf(
      { ...seeded, data: { ...seeded.data, fix_attempts: 3 } },
      state(),
      new Date("2026-02-07T00:00:00Z"),
      "b".repeat(40),
    );
    expect(after).toMatchObject({ fix_attempts: 3, handled_heads: [HEAD, "b".repeat(40)], updated: "2026-02-07T00:00:00.000Z" });
    expect(stateOf(seeded, state(), new Date(), HEAD).handled_heads).toEqual([HEAD]);
  });

  it("carries the PR's flake verdicts and a pending re-run to tell a flake; a later job that sees the head green records the flake", () => {
    const flake = { fingerprint: "fp1", check: "unit", verdict: "known" as const, head: HEAD, at: "2026-02-06T10:00:00.000Z" };
    const probe = {
      sha: HEAD,
      at: "2026-02-06T11:00:00.000Z",
      checks: [{ name: "e2e", fingerprint: "fp2", lines: ["FAIL e2e"], url: "https://ci/9" }],
    };
    const body = renderState(state({ flakes: [flake], flake_probe: probe }), []);
    expect(body).toContain("1 flaky failure(s)");
    const parsed = parseState(body);
    expect(parsed).toMatchObject({ ok: true, state: { flakes: [flake], flake_probe: { sha: HEAD } } });
    const read = parsed?.ok ? parsed.state : state();

    // The document a flow works on gets the probe; the verdicts stay the state's.
    const doc = withState(newDocument(samplePr(), "github-octo-app-42", 5, "2026-02-06T10:00:00Z"), read);
    expect(doc.data.flake_probe?.sha).toBe(HEAD);
    expect("flakes" in doc.data).toBe(false);
    expect(stateOf(doc, read, new Date()).flakes).toEqual([flake]);

    // Still red, or another head: nothing to settle.
    const red = { state: "failure" as const, headSha: HEAD, checks: [] };
    expect(settleProbe(read, red, new Date())).toBeUndefined();
    expect(settleProbe(read, { ...red, state: "success", headSha: "b".repeat(40) }, new Date())).toBeUndefined();
    const settled = settleProbe(read, { ...red, state: "success" }, new Date("2026-02-06T12:00:00.000Z"));
    expect(settled?.flake_probe).toBeUndefined();
    expect(settled?.flakes).toEqual([
      flake,
      { fingerprint: "fp2", check: "e2e", verdict: "rerun", head: HEAD, at: "2026-02-06T12:00:00.000Z", run_url: "https://ci/9" },
    ]);
  });

  it("a forged state comment carries no flake verdicts: only the token user's state is read", () => {
    const forged = renderState(
      state({ flakes: [{ fingerprint: "fp1", check: "unit", verdict: "known", head: HEAD, at: "2026-02-06T10:00:00.000Z" }] }),
      [],
    );
    const found = findState([comment("issue-1", "mallory", forged)], "otto-bot");
    expect(found.state.flakes).toEqual([]);
    expect(found.ignored[0]).toContain("a state comment by mallory");
  });
});
