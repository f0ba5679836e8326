import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { OttoError } from "../core/errors.ts";
import { docsUrl } from "../core/links.ts";
import { readTextIfExists, withFileLock, writeFileAtomic } from "../core/files.ts";
import { xdgPaths, type Env } from "../core/paths.ts";
import { parseRules, preambleOf, renderRules, type ParsedRules } from "./file.ts";
import type { Rule } from "./schema.ts";
import { MAX_RULES, MAX_SOURCES, RuleProposal, type RuleSource, type RuleStatus } from "./schema.ts";

/*
 * The rule files: the repository's `.otto/rules.md` (committed, reviewed like code) and a person's
 * `rules.md` in otto's user config folder. Every write reads, changes and renders the file under its
 * lock, atomically (core/files.ts). A file with a section otto cannot read is not rewritten: the
 * write fails naming the line, so nothing a person wrote is lost.
 */

export const RULES_FILE = path.join(".otto", "rules.md");

/** `.otto/rules.md` of a repository. */
export function rulesPath(root: string): string {
  return path.join(root, RULES_FILE);
}

/** `rules.md` next to otto's user config (otto.jsonc): one person's rules, across repositories. */
export function userRulesPath(env: Env = process.env): string {
  return path.join(xdgPaths(env).ottoConfigDir, "rules.md");
}

async function readFile(file: string): Promise<ParsedRules & { text?: string }> {
  const text = await readTextIfExists(file);
  if (text === undefined) return { rules: [], problems: [] };
  return { ...parseRules(text, path.basename(path.dirname(file)) === ".otto" ? RULES_FILE : file), text };
}

/** The repository's rules; a missing file is no rules, a malformed section a problem naming its line. */
export async function readRules(root: string): Promise<{ rules: Rule[]; problems: string[] }> {
  const { rules, problems } = await readFile(rulesPath(root));
  return { rules, problems };
}

/** The person's own rules (otto's user config folder), same format. */
export async function readUserRules(env: Env = process.env): Promise<{ rules: Rule[]; problems: string[] }> {
  const { rules, problems } = await readFile(userRulesPath(env));
  return { rules, problems };
}

/** Reads, changes and writes one rule file under its lock. `change` returns what the caller gets. */
async function editFile<T>(file: string, change: (rules: Rule[]) => { rules: Rule[]; result: T }): Promise<T> {
  return withFileLock(file, async () => {
    const current = await readFile(file);
    if (current.problems.length > 0) {
      throw new OttoError(
        "rules_file_invalid",
        `${file} has sections otto cannot read, so it is not rewritten:\n${current.problems.map((p) => `- ${p}`).join("\n")}`,
        `Fix those lines in ${file} (the format: ${docsUrl("rules.md")}), then run the command again.`,
      );
    }
    const { rules, result } = change(current.rules);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, renderRules(rules, current.text === undefined ? undefined : preambleOf(current.text)), 0o644);
    return result;
  });
}

/** Text compared for duplicates: case, spacing and punctuation at the edges do not make a new rule. */
export function sameTextKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/[,;:]/g, " ")
    .replace(/\s+/g, " ")
    .replace(/[.!\s]+$/, "")
    .trim();
}

/** A stable id from the text, made once: "r-" + 6 hex of its hash, another if taken. */
export function newRuleId(text: string, taken: ReadonlySet<string>): string {
  for (let n = 0; ; n++) {
    const hex = createHash("sha256")
      .update(n === 0 ? sameTextKey(text) : `${sameTextKey(text)}#${n}`)
      .digest("hex")
      .slice(0, 6);
    const id = `r-${hex}`;
    if (!taken.has(id)) return id;
  }
}

function mergeSources(a: readonly RuleSource[], b: readonly RuleSource[]): RuleSource[] {
  const seen = new Set<string>();
  const all: RuleSource[] = [];
  for (const source of [...a, ...b]) {
    const key = `${source.kind} ${source.url} ${source.author}`;
    if (seen.has(key)) continue;
    seen.add(key);
    all.push(source);
  }
  return all.slice(-MAX_SOURCES);
}

function mergeScope(a: readonly string[], b: readonly string[]): string[] {
  if (a.includes("**") || b.includes("**")) return ["**"];
  return [...new Set([...a, ...b])];
}

const later = (a: string, b: string): string => (a > b ? a : b);
const earlier = (a: string, b: string): string => (a && a < b ? a : b || a);

/**
 * Past MAX_RULES the oldest rejected and retired rules leave the file first; pending and accepted
 * ones are never dropped, a new proposal is refused instead (the caller sees it missing).
 */
function droppable(rules: readonly Rule[]): Rule[] {
  return rules
    .filter((rule) => rule.status === "rejected" || rule.status === "retired")
    .sort((a, b) => a.last_seen.localeCompare(b.last_seen));
}

function withinLimit(rules: Rule[]): Rule[] {
  const over = rules.length - MAX_RULES;
  if (over <= 0) return rules;
  const drop = new Set(
    droppable(rules)
      .slice(0, over)
      .map((rule) => rule.id),
  );
  return rules.filter((rule) => !drop.has(rule.id));
}

/**
 * Pure: adds proposals as pending, merging one whose text duplicates an existing rule (sources
 * added, `seen` bumped, scope widened). A retired rule that is proposed again is pending again; a
 * rejected one stays rejected (a person said no). Returns the file's rules and the rules touched.
 */
export function mergeProposals(existing: readonly Rule[], proposals: readonly RuleProposal[]): { rules: Rule[]; touched: Rule[] } {
  const rules = existing.map((rule) => ({ ...rule }));
  const touched = new Map<string, Rule>();
  for (const raw of proposals) {
    const proposal = RuleProposal.parse(raw);
    const key = sameTextKey(proposal.text);
    const index = rules.findIndex((rule) => sameTextKey(rule.text) === key);
    const match = rules[index];
    if (match) {
      const merged: Rule = {
        ...match,
        sources: mergeSources(match.sources, proposal.sources),
        seen: match.seen + Math.max(1, proposal.seen),
        scope: mergeScope(match.scope, proposal.scope),
        first_seen: earlier(match.first_seen, proposal.first_seen),
        last_seen: later(match.last_seen, proposal.last_seen),
        status: match.status === "retired" ? "pending" : match.status,
      };
      if (merged.status === "pending") delete merged.reason;
      rules[index] = merged;
      touched.set(merged.id, merged);
      continue;
    }
    if (rules.length >= MAX_RULES) {
      const [oldest] = droppable(rules);
      if (!oldest) continue; // the file is full of pending and accepted rules: refused
      rules.splice(rules.indexOf(oldest), 1);
    }
    const id = newRuleId(proposal.text, new Set(rules.map((rule) => rule.id)));
    const rule: Rule = { ...proposal, sources: proposal.sources.slice(-MAX_SOURCES), id, status: "pending" };
    rules.push(rule);
    touched.set(id, rule);
  }
  const kept = withinLimit(rules);
  const keptIds = new Set(kept.map((rule) => rule.id));
  return { rules: kept, touched: [...touched.values()].filter((rule) => keptIds.has(rule.id)) };
}

/** Adds proposals to the repository's rules as pending (duplicates merged); returns the rules added or merged. */
export async function proposeRules(root: string, proposals: ReadonlyArray<Omit<Rule, "id" | "status">>): Promise<Rule[]> {
  return editFile(rulesPath(root), (rules) => {
    const { rules: next, touched } = mergeProposals(rules, proposals);
    return { rules: next, result: touched };
  });
}

/** Same, in the person's own rules file. */
export async function proposeUserRules(proposals: ReadonlyArray<Omit<Rule, "id" | "status">>, env: Env = process.env): Promise<Rule[]> {
  return editFile(userRulesPath(env), (rules) => {
    const { rules: next, touched } = mergeProposals(rules, proposals);
    return { rules: next, result: touched };
  });
}

function changeStatus(file: string, id: string, status: RuleStatus, reason?: string): Promise<Rule> {
  return editFile(file, (rules) => {
    const index = rules.findIndex((rule) => rule.id === id);
    const rule = rules[index];
    if (!rule) {
      throw new OttoError("rule_not_found", `No rule "${id}" in ${file}.`, "Run /otto-rules list to see the rules and their ids.");
    }
    const next: Rule = { ...rule, status };
    if (reason) next.reason = reason.replace(/\s+/g, " ").trim().slice(0, 300);
    else if (status === "accepted" || status === "pending") delete next.reason;
    const updated = rules.slice();
    updated[index] = next;
    return { rules: updated, result: next };
  });
}

/** Accepts, rejects or reopens a repository rule by id; throws rule_not_found naming the fix. */
export function setStatus(root: string, id: string, status: RuleStatus, reason?: string): Promise<Rule> {
  return changeStatus(rulesPath(root), id, status, reason);
}

/** Same, for a rule in the person's own file. */
export function setUserStatus(id: string, status: RuleStatus, env: Env = process.env, reason?: string): Promise<Rule> {
  return changeStatus(userRulesPath(env), id, status, reason);
}

/** Retires a rule later signals contradict; the reason is kept in the file beside it. */
export function retireRule(root: string, id: string, reason: string): Promise<Rule> {
  return changeStatus(rulesPath(root), id, "retired", reason);
}
