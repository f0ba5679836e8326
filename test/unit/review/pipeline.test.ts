import { describe, expect, it } from "vitest";
import { reviewArtifact, formatCritique, type ReviewOptions } from "../../../src/review/index.ts";
import { Account } from "../../../src/cost/index.ts";
import { SessionRunner, extractDocument, type PromptRenderer } from "../../../src/session/index.ts";
import { FakeOpencode, MODEL, OTHER, log, type FakeTurn } from "../session/fake-opencode.ts";

const render: PromptRenderer = () => "Return the envelope again.";
const lines = (prefix: string, n = 8) => Array.from({ length: n }, (_, i) => `${prefix} line ${i}`).join("\n");
const doc = (text: string) => `Here you go.\nBEGIN_DOCUMENT\n${text}\nEND_DOCUMENT`;
const critique = (verdict: string, severities: string[] = []) =>
  `BEGIN_JSON\n${JSON.stringify({ verdict, issues: severities.map((severity) => ({ severity, problem: `a ${severity} problem` })) })}\nEND_JSON`;

/** A primary that generates/refines from scripts and a secondary that reviews from a script. */
function pipeline(script: { generate?: string; reviews: FakeTurn[]; refines?: string[] }) {
  const reviews = [...script.reviews];
  const refines = [...(script.refines ?? [])];
  const fake = new FakeOpencode((call) => {
    const text = call.body.parts[0]?.text ?? "";
    if (text.startsWith("GENERATE")) return { text: doc(script.generate ?? lines("v1")) };
    if (text.startsWith("REFINE")) return { text: doc(refines.shift() ?? "") };
    return reviews.shift() ?? { text: critique("approve") }; // reviews and their json-retry turns
  });
  const runner = new SessionRunner({ client: fake.client, events: fake.events, log, render });
  const progress: string[] = [];
  const options: ReviewOptions = {
    runner,
    directory: "/repo",
    parentID: "ses_parent",
    primary: MODEL,
    secondary: OTHER,
    artifact: "design.md",
    generate: { prompt: "GENERATE the design" },
    reviewPrompt: (artifact) => `REVIEW\n${artifact}`,
    refinePrompt: (artifact, c) => `REFINE\n${artifact}\n${formatCritique(c)}`,
    extract: extractDocument,
    timeoutMs: 5_000,
    onProgress: (message) => progress.push(message),
  };
  return { fake, options, progress };
}

describe("reviewArtifact", () => {
  it("charges each pass to the account the caller gives it, and never survives a reached budget", async () => {
    const { options } = pipeline({ reviews: [{ text: critique("revise", ["major"]) }], refines: [lines("v2")] });
    const stage = new Account("stage design");
    const asked: string[] = [];
    // The review's account has reached its budget: its session may not start, and the stage stops (no warning, no refine).
    const review = stage.child("review acme/small-2", { budget: { usd: 1 } });
    review.charge("acme/small-2", { requests: 1, input: 1, output: 1, reasoning: 0, cacheRead: 0, cacheWrite: 0, usd: 2, unpriced: 0 });
    const error = await reviewArtifact({
      ...options,
      account: (role, model) => {
        asked.push(`${role} ${model.modelID}`);
        return role === "review" ? review : stage.child(role);
      },
    }).catch((e: unknown) => e);
    expect(asked).toEqual(["generate big-1", "review small-2"]);
    expect((error as { code?: string }).code).toBe("budget_exceeded");
    expect(String(error)).toMatch(/Budget reached: spent \$2\.00 of \$1\.00 \(review acme\/small-2\)/);
  });

  it("stops after the review when the secondary approves", async () => {
    const { fake, options, progress } = pipeline({ reviews: [{ text: critique("approve", ["minor"]) }] });
    const result = await reviewArtifact(options);
    expect(result.final).toBe(lines("v1"));
    expect(result.passes.map((p) => `${p.role} ${p.model}`)).toEqual(["generate acme/big-1", "review acme/small-2"]);
    expect(result.passes[1]?.summary).toBe("approve: 1 minor");
    expect(progress).toEqual(["pass 1/3: primary generating design.md", "pass 2/3: secondary reviewing (clean session)"]);
    expect(fake.sessions.size).toBe(0);
  });

  it("runs one cycle when the refinement changes little", async () => {
    const refined = `${lines("v1")}\nv2 extra line`;
    const { fake, options, progress } = pipeline({ reviews: [{ text: critique("revise", ["major"]) }], refines: [refined] });
    const result = await reviewArtifact(options);
    expect(result.final).toBe(refined);
    expect(result.passes.map((p) => p.role)).toEqual(["generate", "review", "refine"]);
    expect(progress).toEqual([
      "pass 1/3: primary generating design.md",
      "pass 2/3: secondary reviewing (clean session)",
      "pass 3/3: primary incorporating feedback (clean session)",
    ]);
    // Every pass is a clean child session of the invoking session, with the role's agent and model.
    const bySession = new Map(fake.prompts.map((p) => [p.sessionID, p.body]));
    expect(bySession.size).toBe(3);
    expect([...bySession.values()].map((b) => `${b.agent} ${b.model.modelID}`)).toEqual([
      "otto-reviewer big-1",
      "otto-reviewer small-2",
      "otto-reviewer big-1",
    ]);
    expect(fake.prompts[2]?.body.parts[0]?.text).toContain("[major] a major problem");
  });

  it("runs a second cycle when the refinement changed substantially, then stops at maxCycles", async () => {
    const { options, progress } = pipeline({
      reviews: [{ text: critique("revise", ["critical"]) }, { text: critique("revise", ["major"]) }],
      refines: [lines("v2"), lines("v3")],
    });
    const result = await reviewArtifact(options);
    expect(result.final).toBe(lines("v3"));
    expect(result.critiques).toHaveLength(2);
    expect(progress).toEqual([
      "pass 1/3: primary generating design.md",
      "pass 2/3: secondary reviewing (clean session)",
      "pass 3/3: primary incorporating feedback (clean session)",
      "pass 4/5: secondary reviewing (clean session)",
      "pass 5/5: primary incorporating feedback (clean session)",
    ]);
  });

  it("keeps the primary's artifact with a warning when the reviewer fails", async () => {
    const { options } = pipeline({
      reviews: [{ error: { name: "APIError", data: { message: "overloaded", statusCode: 529, isRetryable: false } } }],
    });
    const result = await reviewArtifact(options);
    expect(result.final).toBe(lines("v1"));
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain("overloaded");
    expect(result.passes.at(-1)).toMatchObject({ role: "review", summary: "failed" });
  });

  it("keeps the artifact when the reviewer never returns a valid envelope", async () => {
    const notJson = { text: "looks fine to me" };
    const { fake, options } = pipeline({ reviews: [notJson, notJson, notJson] });
    const result = await reviewArtifact(options);
    expect(result.final).toBe(lines("v1"));
    expect(result.warnings[0]).toContain("did not return valid JSON");
    expect(fake.prompts.filter((p) => p.body.model.modelID === "small-2")).toHaveLength(3);
  });

  it("stops when the tool is cancelled instead of carrying on", async () => {
    const controller = new AbortController();
    const { options } = pipeline({ reviews: [{ hang: true, silent: true }] });
    options.signal = controller.signal;
    options.onProgress = (message) => {
      if (message.startsWith("pass 2/3")) setTimeout(() => controller.abort(), 5);
    };
    await expect(reviewArtifact(options)).rejects.toMatchObject({ code: "session_aborted" });
  });
});
