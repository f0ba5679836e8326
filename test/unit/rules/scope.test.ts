import { describe, expect, it } from "vitest";
import { globRegex, rulesInScope, type Rule } from "../../../src/rules/index.ts";

const rule = (id: string, scope: string[], status: Rule["status"] = "accepted"): Rule => ({
  id,
  text: `Rule ${id}.`,
  scope,
  status,
  sources: [],
  seen: 1,
  first_seen: "2026-11-01",
  last_seen: "2026-11-01",
});

describe("rule scope", () => {
  it("globs: ** across folders (zero or more), * and ? within a segment, {a,b}, bare names at any depth", () => {
    const match = (glob: string, file: string) => globRegex(glob).test(file);
    expect(match("src/**", "src/a.ts")).toBe(true);
    expect(match("src/**", "src/x/y/a.ts")).toBe(true);
    expect(match("src/**", "lib/a.ts")).toBe(false);
    expect(match("src/**", "srcs/a.ts")).toBe(false);
    expect(match("src/*.ts", "src/a.ts")).toBe(true);
    expect(match("src/*.ts", "src/x/a.ts")).toBe(false);
    expect(match("**/*.test.ts", "a.test.ts")).toBe(true);
    expect(match("**/*.test.ts", "test/unit/a.test.ts")).toBe(true);
    expect(match("*.sql", "db/migrations/001.sql")).toBe(true);
    expect(match("db/{a,b}/**", "db/b/x.sql")).toBe(true);
    expect(match("db/{a,b}/**", "db/c/x.sql")).toBe(false);
    expect(match("src/?.ts", "src/ab.ts")).toBe(false);
    expect(match("src/a.ts", "src/a.ts")).toBe(true);
    expect(match("src/a.ts", "src/aXts")).toBe(false);
  });

  it("rulesInScope: accepted rules only; a whole-repo rule always; others when a file is in scope", () => {
    const rules = [
      rule("r-000001", ["src/**"]),
      rule("r-000002", ["**"]),
      rule("r-000003", ["docs/**"]),
      rule("r-000004", ["src/**"], "pending"),
      rule("r-000005", ["**"], "rejected"),
      rule("r-000006", ["src/**"], "retired"),
    ];
    expect(rulesInScope(rules, ["src/app.ts"]).map((r) => r.id)).toEqual(["r-000001", "r-000002"]);
    expect(rulesInScope(rules, ["./docs/x.md", "README.md"]).map((r) => r.id)).toEqual(["r-000002", "r-000003"]);
    expect(rulesInScope(rules, []).map((r) => r.id)).toEqual(["r-000002"]);
  });
});
