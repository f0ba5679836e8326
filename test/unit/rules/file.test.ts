import { describe, expect, it } from "vitest";
import { parseRules, renderRules, type Rule } from "../../../src/rules/index.ts";

const rule = (over: Partial<Rule> = {}): Rule => ({
  id: "r-1a2b3c",
  text: "Use logger.info, not console.log.",
  scope: ["src/**"],
  status: "accepted",
  sources: [
    { kind: "agreed-fixed", url: "https://github.com/o/r/pull/3#discussion_r1", author: "alice", at: "2026-11-01T10:00:00.000Z" },
    { kind: "added", url: "", author: "Bob on Call", at: "2026-11-02T10:00:00.000Z" },
  ],
  seen: 2,
  first_seen: "2026-11-01T10:00:00.000Z",
  last_seen: "2026-11-02T10:00:00.000Z",
  ...over,
});

describe(".otto/rules.md", () => {
  it("round-trips: render then parse gives the same rules, with no problems", () => {
    const rules = [
      rule(),
      rule({ id: "r-00ff00", text: "Name SQL migrations by date.", scope: ["*.sql", "db/{a,b}/**"], status: "pending", sources: [] }),
      rule({ id: "r-abcdef", status: "retired", reason: "later reviews asked for console.log in scripts" }),
    ];
    const text = renderRules(rules);
    expect(text).toContain("## r-1a2b3c");
    expect(text).toContain("- scope: `src/**`");
    expect(parseRules(text)).toEqual({ rules, problems: [] });
    // Rendering what was parsed gives the same text: otto's writes make no noise in a diff.
    expect(renderRules(parseRules(text).rules)).toBe(text);
  });

  it("reads a hand-written file: loose spacing, comma-separated scope, no sources", () => {
    const text = [
      "# Our rules",
      "",
      "##   r-aaaaaa  ",
      "Prefer early returns",
      "over nested ifs.",
      "- status:   accepted",
      "- scope: src/**, lib/**",
      "- seen: 1",
      "- first_seen: 2026-11-01",
    ].join("\n");
    const { rules, problems } = parseRules(text);
    expect(problems).toEqual([]);
    expect(rules).toEqual([
      {
        id: "r-aaaaaa",
        text: "Prefer early returns over nested ifs.",
        scope: ["src/**", "lib/**"],
        status: "accepted",
        sources: [],
        seen: 1,
        first_seen: "2026-11-01",
        last_seen: "2026-11-01",
      },
    ]);
  });

  it("a malformed section is a problem naming its line, and the other rules are still read", () => {
    const good = renderRules([rule()]);
    const text = [
      good,
      "## r-NOTHEX",
      "",
      "Something.",
      "",
      "- status: accepted",
      "",
      "## r-bbbbbb",
      "",
      "Keep functions short.",
      "",
      "- status: maybe",
      "",
      "## r-cccccc",
      "",
      "Text.",
      "",
      "- status: pending",
      "- sources:",
      "  - gossip by eve on 2026-11-01T00:00:00Z: https://x",
      "stray line",
    ].join("\n");
    const offset = good.split("\n").length;
    const { rules, problems } = parseRules(text);
    expect(rules.map((r) => r.id)).toEqual(["r-1a2b3c", "r-cccccc"]);
    expect(problems).toEqual([
      expect.stringMatching(new RegExp(`^rules\\.md line ${offset + 1}: rule "r-NOTHEX" skipped: id: a rule id is`)),
      expect.stringMatching(new RegExp(`^rules\\.md line ${offset + 7}: rule "r-bbbbbb" skipped: status`)),
      `rules.md line ${offset + 19}: a source's kind "gossip" is not one of agreed-fixed, pushed-back, review-applied, review-dismissed, remember, added`,
      `rules.md line ${offset + 20}: not a rule field or source: "stray line"`,
    ]);
  });

  it("a rule id twice: the first wins, the second is a problem", () => {
    const text = renderRules([rule(), rule({ text: "Other." })]);
    const { rules, problems } = parseRules(text, ".otto/rules.md");
    expect(rules).toHaveLength(1);
    expect(problems).toEqual([expect.stringMatching(/^\.otto\/rules\.md line \d+: rule "r-1a2b3c" appears twice/)]);
  });

  it("refuses rule text with a code fence (it could close the fence prompts put rules in)", () => {
    const text = ["## r-dddddd", "", "Do this ``` then that.", "", "- status: accepted"].join("\n");
    const { rules, problems } = parseRules(text);
    expect(rules).toEqual([]);
    expect(problems[0]).toMatch(/line 1: rule "r-dddddd" skipped: text: a rule's text may not contain a code fence/);
  });

  it("headings inside a fenced block are not rules; an empty or missing file is no rules", () => {
    expect(parseRules("# Rules\n\n```\n## r-eeeeee\n- status: accepted\n```\n")).toEqual({ rules: [], problems: [] });
    expect(parseRules("")).toEqual({ rules: [], problems: [] });
  });
});
