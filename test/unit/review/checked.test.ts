import { describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { generateChecked, reviewArtifact, type Acceptance, type PassDialog } from "../../../src/review/index.ts";
import { SessionRunner, extractDocument, type PromptRenderer } from "../../../src/session/index.ts";
import { FakeOpencode, MODEL, OTHER, log } from "../session/fake-opencode.ts";

const render: PromptRenderer = () => "Return the envelope again.";
const doc = (text: string) => `BEGIN_DOCUMENT\n${text}\nEND_DOCUMENT`;
/** Valid when the document says "good"; normalised to upper case. */
const accept = (artifact: string): Acceptance =>
  artifact.includes("good") ? { ok: true, artifact: artifact.toUpperCase() } : { ok: false, problems: `not good: ${artifact}` };
const child = { directory: "/repo", parentID: "ses_parent", agent: "otto-reviewer", model: MODEL, title: "t", timeoutMs: 5_000 };

function fakeWith(answers: string[]) {
  const queue = [...answers];
  const fake = new FakeOpencode(() => ({ text: queue.shift() ?? doc("good") }));
  return { fake, runner: new SessionRunner({ client: fake.client, events: fake.events, log, render }) };
}

describe("generateChecked", () => {
  it("sends the problems back to the same session until the artifact passes", async () => {
    const { fake, runner } = fakeWith([doc("bad 1"), doc("bad 2"), doc("good 3")]);
    const dialogs: PassDialog[] = [];
    const reply = await generateChecked(runner, child, "generate", "WRITE", {
      artifact: "tasks.md",
      extract: extractDocument,
      accept,
      repairPrompt: (problems) => `FIX ${problems}`,
      onDialog: (d) => dialogs.push(d),
    });
    expect(reply).toMatchObject({ artifact: "GOOD 3", attempts: 3 });
    expect(fake.prompts.map((p) => p.body.parts[0]?.text)).toEqual(["WRITE", "FIX not good: bad 1", "FIX not good: bad 2"]);
    expect(new Set(fake.prompts.map((p) => p.sessionID)).size).toBe(1);
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0]?.dialog).toContain("FIX not good: bad 2");
    expect(fake.deleted).toEqual([reply.sessionID]);
  });

  it("gives up after maxRepairs with invalid_artifact, still reporting the dialog", async () => {
    const { runner } = fakeWith([doc("bad"), doc("bad"), doc("bad"), doc("good")]);
    const dialogs: PassDialog[] = [];
    let caught: unknown;
    try {
      await generateChecked(runner, child, "generate", "WRITE", {
        artifact: "tasks.md",
        extract: extractDocument,
        accept,
        repairPrompt: (p) => p,
        onDialog: (d) => dialogs.push(d),
      });
    } catch (error) {
      caught = error;
    }
    expect(isOttoError(caught) && caught.code).toBe("invalid_artifact");
    expect(dialogs).toHaveLength(1);
  });
});

describe("reviewArtifact with a check", () => {
  it("keeps the last valid version when the refiner never produces a valid one", async () => {
    const critique = `BEGIN_JSON\n${JSON.stringify({ verdict: "revise", issues: [{ severity: "major", problem: "p" }] })}\nEND_JSON`;
    const { fake, runner } = fakeWith([doc("good v1"), critique, doc("bad"), doc("bad"), doc("bad")]);
    const result = await reviewArtifact({
      runner,
      directory: "/repo",
      primary: MODEL,
      secondary: OTHER,
      artifact: "tasks.md",
      generate: { prompt: "WRITE" },
      reviewPrompt: () => "REVIEW",
      refinePrompt: () => "REFINE",
      extract: extractDocument,
      accept,
      repairPrompt: (p) => `FIX ${p}`,
      timeoutMs: 5_000,
    });
    expect(result.final).toBe("GOOD V1");
    expect(result.warnings[0]).toContain("Incorporating the review of tasks.md failed");
    expect(fake.prompts).toHaveLength(5);
  });
});
