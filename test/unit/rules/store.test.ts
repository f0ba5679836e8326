import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import {
  MAX_RULES,
  mergeProposals,
  proposeRules,
  proposeUserRules,
  readRules,
  readUserRules,
  retireRule,
  rulesPath,
  setStatus,
  type Rule,
  type RuleProposal,
} from "../../../src/rules/index.ts";

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "otto-rules-"));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const proposal = (text: string, over: Partial<RuleProposal> = {}): RuleProposal => ({
  text,
  scope: ["src/**"],
  sources: [{ kind: "remember", url: `https://github.com/o/r/pull/1#${text.length}`, author: "alice", at: "2026-11-01T00:00:00.000Z" }],
  seen: 1,
  first_seen: "2026-11-01T00:00:00.000Z",
  last_seen: "2026-11-01T00:00:00.000Z",
  ...over,
});

describe("rules store", () => {
  it("a missing file is no rules", async () => {
    expect(await readRules(root)).toEqual({ rules: [], problems: [] });
    expect(await readUserRules({ HOME: root, XDG_CONFIG_HOME: path.join(root, "cfg") })).toEqual({ rules: [], problems: [] });
  });

  it("proposes as pending with a stable id, merges a duplicate text, and writes a readable file", async () => {
    const [first] = await proposeRules(root, [proposal("Use logger.info, not console.log.")]);
    expect(first).toMatchObject({ status: "pending", seen: 1 });
    expect(first?.id).toMatch(/^r-[0-9a-f]{6}$/);
    const [merged] = await proposeRules(root, [
      proposal("use logger.info not console.log", {
        scope: ["lib/**"],
        sources: [{ kind: "agreed-fixed", url: "https://x/2", author: "bob", at: "2026-11-05T00:00:00.000Z" }],
        last_seen: "2026-11-05T00:00:00.000Z",
      }),
    ]);
    expect(merged).toMatchObject({ id: first?.id, seen: 2, scope: ["src/**", "lib/**"], last_seen: "2026-11-05T00:00:00.000Z" });
    expect(merged?.sources.map((s) => s.author)).toEqual(["alice", "bob"]);
    const { rules, problems } = await readRules(root);
    expect(problems).toEqual([]);
    expect(rules).toEqual([merged]);
    const text = await fs.readFile(rulesPath(root), "utf8");
    expect(text).toContain(`## ${first?.id}\n\nUse logger.info, not console.log.\n`);
  });

  it("accepts, rejects and retires by id; an unknown id is rule_not_found naming /otto-rules list", async () => {
    const [rule] = await proposeRules(root, [proposal("Prefer early returns.")]);
    const id = rule?.id ?? "";
    expect((await setStatus(root, id, "accepted")).status).toBe("accepted");
    expect(await retireRule(root, id, "reviewers asked for nested ifs since")).toMatchObject({
      status: "retired",
      reason: "reviewers asked for nested ifs since",
    });
    expect((await readRules(root)).rules[0]).toMatchObject({ status: "retired", reason: "reviewers asked for nested ifs since" });
    // A retired rule proposed again is pending again; a rejected one stays rejected.
    expect((await proposeRules(root, [proposal("Prefer early returns")]))[0]?.status).toBe("pending");
    await setStatus(root, id, "rejected");
    expect((await proposeRules(root, [proposal("prefer early returns.")]))[0]?.status).toBe("rejected");
    const error = await setStatus(root, "r-ffffff", "accepted").catch((e: unknown) => e);
    expect(isOttoError(error) && error.code).toBe("rule_not_found");
    expect(isOttoError(error) && error.fix).toMatch(/\/otto-rules list/);
  });

  it("never rewrites a file with a section it cannot read: the error names the line", async () => {
    await proposeRules(root, [proposal("Keep it short.")]);
    const file = rulesPath(root);
    const before = `${await fs.readFile(file, "utf8")}\n## r-zzzzzz\n\nBroken.\n\n- status: accepted\n`;
    await fs.writeFile(file, before);
    const error = await proposeRules(root, [proposal("Another rule.")]).catch((e: unknown) => e);
    expect(isOttoError(error) && error.code).toBe("rules_file_invalid");
    expect(String((error as Error).message)).toMatch(/\.otto\/rules\.md line \d+: rule "r-zzzzzz" skipped/);
    expect(await fs.readFile(file, "utf8")).toBe(before);
    expect((await readRules(root)).problems).toHaveLength(1);
  });

  it("keeps the preamble a person wrote above the rules", async () => {
    await fs.mkdir(path.join(root, ".otto"));
    await fs.writeFile(rulesPath(root), "# Rules of team X\n\nAsk Dana before changing these.\n");
    await proposeRules(root, [proposal("Keep it short.")]);
    expect(await fs.readFile(rulesPath(root), "utf8")).toMatch(/^# Rules of team X\n\nAsk Dana before changing these.\n\n## r-/);
  });

  it("concurrent proposals all land (the write is locked)", async () => {
    await Promise.all(Array.from({ length: 8 }, (_, i) => proposeRules(root, [proposal(`Rule number ${i}.`)])));
    expect((await readRules(root)).rules).toHaveLength(8);
  });

  it(`stays within ${MAX_RULES} rules: the oldest rejected/retired leave first; a full file refuses a new proposal`, () => {
    const base = (i: number, status: Rule["status"]): Rule => ({
      ...proposal(`Rule ${i}.`),
      id: `r-${i.toString(16).padStart(6, "0")}`,
      status,
      last_seen: `2026-11-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`,
    });
    const full = Array.from({ length: MAX_RULES }, (_, i) => base(i, i < 2 ? "rejected" : "accepted"));
    const { rules, touched } = mergeProposals(full, [proposal("New one.")]);
    expect(rules).toHaveLength(MAX_RULES);
    expect(rules.some((r) => r.id === "r-000000")).toBe(false);
    expect(touched.map((r) => r.text)).toEqual(["New one."]);
    const allAccepted = full.map((r) => ({ ...r, status: "accepted" as const }));
    const refused = mergeProposals(allAccepted, [proposal("New one.")]);
    expect(refused.rules).toHaveLength(MAX_RULES);
    expect(refused.touched).toEqual([]);
  });

  it("user-level rules live next to otto's user config, same format", async () => {
    const env = { HOME: root, XDG_CONFIG_HOME: path.join(root, "cfg") };
    const [rule] = await proposeUserRules([proposal("Write commit messages in English.", { scope: ["**"] })], env);
    const text = await fs.readFile(path.join(root, "cfg", "otto", "rules.md"), "utf8");
    expect(text).toContain(`## ${rule?.id}`);
    expect((await readUserRules(env)).rules).toEqual([rule]);
  });
});
