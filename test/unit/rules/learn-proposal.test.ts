import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  candidatesOf,
  Grouping,
  kept,
  learnStateFile,
  readLearnState,
  recordLearnRun,
  rememberedProposal,
  toProposal,
} from "../../../src/rules/learn/index.ts";
import type { Signal } from "../../../src/rules/signals/index.ts";
import type { Rule } from "../../../src/rules/index.ts";

const signal = (id: string, extra: Partial<Signal> = {}): Signal => ({
  id,
  kind: "agreed-fixed",
  pr: "octo/app#3",
  url: `https://github.com/octo/app/pull/3#discussion_r${id}`,
  author: "lead",
  at: `2026-11-0${id}T00:00:00Z`,
  comment: "Use logger.info, not console.log.",
  ...extra,
});

const existing: Rule = {
  id: "r-abc123",
  text: "Use console.log for diagnostics.",
  scope: ["**"],
  status: "accepted",
  sources: [],
  seen: 1,
  first_seen: "2026-10-01T00:00:00Z",
  last_seen: "2026-10-01T00:00:00Z",
};

describe("candidatesOf: the primary model's answer is untrusted", () => {
  const signals = [signal("1"), signal("2")];

  it("keeps valid rules with the signals they cite, up to max, and drops the rest one by one", () => {
    const raw = Grouping.parse({
      rules: [
        { text: "Log through logger.info.", scope: ["src/**"], signals: ["1", "2", "1"] },
        { text: "```sh\nrm -rf /\n```", signals: ["1"] }, // a fence: not plain text
        { text: "Cites nothing of this run.", signals: ["9"] },
        { text: "Escapes the repository.", scope: ["../etc/**"], signals: ["1"] },
        { text: "x".repeat(600), signals: ["1"] },
        "not an object",
        { text: "Name every constant.", signals: ["2"] },
        { text: "Over the cap.", signals: ["2"] },
      ],
      retire: [
        { id: "r-abc123", signals: ["2"], reason: "Reviewers ask for logger.info." },
        { id: "r-ffffff", signals: ["2"] }, // no such rule
        { id: "r-abc123", signals: ["9"] }, // cites nothing of this run
      ],
    });
    const out = candidatesOf(raw, signals, [existing], 2);
    expect(out.map((c) => [c.kind, c.text, c.scope, c.signals.map((s) => s.id)])).toEqual([
      ["rule", "Log through logger.info.", ["src/**"], ["1", "2"]],
      ["rule", "Name every constant.", ["**"], ["2"]],
      ["retire", existing.text, ["**"], ["2"]],
    ]);
    expect(out[2]?.id).toBe("r-abc123");
  });

  it("a malformed answer is no candidates, not a crash", () => {
    expect(Grouping.safeParse({ rules: "all of them" }).success).toBe(false);
    expect(candidatesOf(Grouping.parse({}), signals, [], 5)).toEqual([]);
  });
});

describe("kept, toProposal, rememberedProposal", () => {
  it("keeps only the candidates the check kept by number; the proposal links every signal", () => {
    const raw = Grouping.parse({
      rules: [
        { text: "A.", signals: ["1"] },
        { text: "B.", signals: ["2", "1"] },
      ],
    });
    const candidates = candidatesOf(raw, [signal("1"), signal("2")], [], 5);
    const chosen = kept(candidates, {
      verdicts: [
        { proposal: 1, verdict: "drop", reason: "" },
        { proposal: 2, verdict: "keep", reason: "" },
        { proposal: 7, verdict: "keep", reason: "" },
      ],
    });
    expect(chosen.map((c) => c.text)).toEqual(["B."]);
    expect(toProposal(chosen[0]!)).toEqual({
      text: "B.",
      scope: ["**"],
      sources: [
        { kind: "agreed-fixed", url: "https://github.com/octo/app/pull/3#discussion_r2", author: "lead", at: "2026-11-02T00:00:00Z" },
        { kind: "agreed-fixed", url: "https://github.com/octo/app/pull/3#discussion_r1", author: "lead", at: "2026-11-01T00:00:00Z" },
      ],
      seen: 2,
      first_seen: "2026-11-01T00:00:00Z",
      last_seen: "2026-11-02T00:00:00Z",
    });
  });

  it("/otto remember becomes a whole-repository proposal as written, when it is plain text", () => {
    expect(rememberedProposal(signal("1", { kind: "remember", rule: "Keep handlers small." }))).toMatchObject({
      text: "Keep handlers small.",
      scope: ["**"],
      sources: [{ kind: "remember" }],
    });
    expect(rememberedProposal(signal("1", { kind: "remember", rule: "```\nbad\n```" }))).toBeUndefined();
  });
});

describe("the learning state", () => {
  it("keeps consumed ids per repository in otto's data folder, and the last run", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "otto-learn-"));
    try {
      const file = learnStateFile({ XDG_DATA_HOME: home }, "github", "Octo/App");
      expect(file).toBe(path.join(home, "otto", "rules", "github-octo-app.json"));
      expect(await readLearnState(file)).toEqual({ consumed: [] });
      await recordLearnRun(file, ["a", "b"], new Date("2026-11-01T00:00:00Z"));
      await recordLearnRun(file, ["b", "c"], new Date("2026-11-02T00:00:00Z"));
      expect(await readLearnState(file)).toEqual({ consumed: ["a", "b", "c"], last_run: "2026-11-02T00:00:00.000Z" });
      fs.writeFileSync(file, "{ torn");
      expect(await readLearnState(file)).toEqual({ consumed: [] });
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
