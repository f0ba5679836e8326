import { describe, expect, it } from "vitest";
import { citedRule, diffFiles } from "../../../src/pr-review/rules.ts";
import { toFinding } from "../../../src/pr-review/loop/findings.ts";

describe("team rules in /pr-review", () => {
  const prompt = { text: "rules", repoIds: ["r-000001"], userIds: ["r-00000a"] };

  it("keeps a cited rule only when the review was given it", () => {
    expect(citedRule("r-000001", prompt)).toBe("r-000001");
    expect(citedRule(" r-00000a ", prompt)).toBe("r-00000a");
    expect(citedRule("r-ffffff", prompt)).toBeUndefined();
    expect(citedRule(null, prompt)).toBeUndefined();
    const finding = {
      priority: "P2",
      category: "quality",
      file: "src/a.ts",
      line: 3,
      title: "console.log",
      description: "",
      suggestion: "",
    } as const;
    expect(toFinding({ ...finding, rule: "r-000001" }, "reviewer-1", prompt.repoIds).rule).toBe("r-000001");
    expect(toFinding({ ...finding, rule: "r-ffffff" }, "reviewer-1", prompt.repoIds).rule).toBeUndefined();
  });

  it("reads the changed files of a diff, by their new names", () => {
    const diff = ["diff --git a/src/a.ts b/src/a.ts", "@@ -1 +1 @@", "diff --git a/old.ts b/lib/new.ts", "rename from old.ts"].join("\n");
    expect(diffFiles(diff)).toEqual(["src/a.ts", "lib/new.ts"]);
  });
});
