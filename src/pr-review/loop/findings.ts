import { createHash } from "node:crypto";
import { PRIORITIES, type Counts, type Finding, type ModelFinding, type Priority } from "./schemas.ts";

/** Short category codes for ids; anything else gets the first four letters of its name. */
const CATEGORY_CODES: Record<string, string> = {
  security: "SEC",
  performance: "PERF",
  quality: "QUAL",
  architecture: "ARCH",
  testing: "TEST",
  docs: "DOCS",
  documentation: "DOCS",
  other: "OTHER",
  "review-thread": "THREAD",
};

export function categoryCode(category: string): string {
  const key = category.trim().toLowerCase();
  const known = CATEGORY_CODES[key];
  if (known) return known;
  const letters = key
    .replace(/[^a-z]/g, "")
    .slice(0, 4)
    .toUpperCase();
  return letters || "OTHER";
}

/**
 * `CAT-<first 8 hex of sha1(category|file|line|title)>`: computed by otto so
 * the same finding has the same id in every round, whatever id the model wrote.
 */
export function findingId(category: string, file: string, line: number | null | undefined, title: string): string {
  const key = `${category}|${file}|${line ?? ""}|${title}`;
  return `${categoryCode(category)}-${createHash("sha1").update(key).digest("hex").slice(0, 8)}`;
}

/** A reviewer's finding with its id computed; the model's own id, if any, is dropped. */
export function toFinding(raw: ModelFinding, reviewer: string, rules: readonly string[] = []): Finding {
  const line = raw.line ?? null;
  const rule = raw.rule?.trim();
  return {
    id: findingId(raw.category, raw.file, line, raw.title),
    priority: raw.priority,
    category: raw.category,
    file: raw.file,
    line,
    title: raw.title,
    description: raw.description,
    suggestion: raw.suggestion,
    source: { type: "agent", name: reviewer, reviewId: null },
    // Only a rule the reviewer was given: a made-up id would send the reader looking for nothing.
    ...(rule && rules.includes(rule) ? { rule } : {}),
  };
}

export function countByPriority(findings: readonly Finding[]): Counts {
  const counts: Counts = { P0: 0, P1: 0, P2: 0, P3: 0 };
  for (const f of findings) counts[f.priority]++;
  return counts;
}

/** P0–P2: what blocks approval and goes to the fix session. P3 is optional. */
export function isBlocking(priority: Priority): boolean {
  return priority !== "P3";
}

/** Findings sorted P0 first, then by file and line, stable otherwise. */
export function byPriority(findings: readonly Finding[]): Finding[] {
  const rank = (p: Priority) => PRIORITIES.indexOf(p);
  return [...findings].sort((a, b) => rank(a.priority) - rank(b.priority) || a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0));
}

/** One finding per id (several reviewers can report the same thing); the highest priority wins. */
export function uniqueById(findings: readonly Finding[]): Finding[] {
  const map = new Map<string, Finding>();
  for (const f of byPriority(findings)) if (!map.has(f.id)) map.set(f.id, f);
  return [...map.values()];
}
