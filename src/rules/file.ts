import { docsUrl } from "../core/links.ts";
import { formatZodIssues } from "../core/zod-issues.ts";
import { Rule, RuleSource, type RuleSourceKind } from "./schema.ts";

/*
 * `.otto/rules.md`, read and written by people as much as by otto: one `## r-xxxxxx` section per
 * rule, its text as a paragraph, then its fields as a list. Parsing is pure and never throws: a
 * section that does not make a rule is skipped and reported with its line (readRules' problems).
 *
 *     ## r-1a2b3c
 *
 *     Use logger.info, not console.log.
 *
 *     - status: accepted
 *     - scope: `src/**`
 *     - seen: 2
 *     - first_seen: 2026-11-01T10:00:00.000Z
 *     - last_seen: 2026-11-03T09:00:00.000Z
 *     - sources:
 *       - agreed-fixed by alice on 2026-11-01T10:00:00.000Z: https://github.com/o/r/pull/3#discussion_r1
 */

export interface ParsedRules {
  rules: Rule[];
  /** "rules.md line 12: …", one per section or line that was not understood */
  problems: string[];
}

const HEADING = /^##\s+(\S+)\s*$/;
const FIELD = /^-\s+(status|scope|seen|first_seen|last_seen|reason|sources)\s*:\s*(.*)$/;
const SOURCE = /^\s+-\s+([a-z-]+)\s+by\s+(.*?)\s+on\s+(\S+?)(?::\s+(.*))?$/;

export const RULES_HEADER = [
  "# Team rules",
  "",
  `Rules otto applies when it writes or reviews code here (${docsUrl("rules.md")}).`,
  "Review changes to this file like code. `/otto-rules accept|reject <id>` changes a status;",
  "editing a rule's text or scope by hand is fine, its id stays.",
  "",
].join("\n");

interface Section {
  heading: string;
  line: number;
  lines: Array<{ text: string; line: number }>;
}

function sections(text: string): { sections: Section[]; problems: string[] } {
  const result: Section[] = [];
  const problems: string[] = [];
  let current: Section | undefined;
  let inFence = false;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (/^\s*(```|~~~)/.test(raw)) inFence = !inFence;
    const heading = inFence ? undefined : HEADING.exec(raw);
    if (heading) {
      current = { heading: heading[1] ?? "", line, lines: [] };
      result.push(current);
    } else if (current) current.lines.push({ text: raw, line });
    else if (!inFence && /^-\s+\w+\s*:/.test(raw)) problems.push(`line ${line}: a rule's field outside a "## r-xxxxxx" section`);
  });
  return { sections: result, problems };
}

function parseScope(value: string): string[] {
  const quoted = [...value.matchAll(/`([^`]+)`/g)].map((m) => (m[1] ?? "").trim());
  if (quoted.length > 0) return quoted;
  return value
    .split(",")
    .map((glob) => glob.trim())
    .filter(Boolean);
}

function parseSection(section: Section, file: string): { rule?: Rule; problems: string[] } {
  const problems: string[] = [];
  const at = (line: number, message: string) => problems.push(`${file} line ${line}: ${message}`);
  const text: string[] = [];
  const fields: Record<string, unknown> = {};
  const sources: unknown[] = [];
  let inSources = false;
  let fieldsStarted = false;
  for (const { text: raw, line } of section.lines) {
    const field = FIELD.exec(raw);
    if (field) {
      fieldsStarted = true;
      const [, key = "", value = ""] = field;
      inSources = key === "sources";
      if (key === "scope") fields.scope = parseScope(value);
      else if (key === "seen") fields.seen = /^\d+$/.test(value.trim()) ? Number(value.trim()) : value.trim();
      else if (key !== "sources") fields[key] = value.trim();
      continue;
    }
    const source = inSources ? SOURCE.exec(raw) : null;
    if (source) {
      const [, kind = "", author = "", when = "", url = ""] = source;
      const parsed = RuleSource.safeParse({ kind: kind as RuleSourceKind, author, at: when, url: url.trim() });
      if (parsed.success) sources.push(parsed.data);
      else at(line, `a source's kind "${kind}" is not one of ${RuleSource.shape.kind.options.join(", ")}`);
      continue;
    }
    if (raw.trim() === "") continue;
    if (fieldsStarted) at(line, `not a rule field or source: "${raw.trim().slice(0, 60)}"`);
    else text.push(raw.trim());
  }
  const parsed = Rule.safeParse({
    id: section.heading,
    text: text.join(" "),
    scope: fields.scope ?? ["**"],
    status: fields.status,
    sources,
    seen: fields.seen ?? sources.length,
    first_seen: fields.first_seen ?? "",
    last_seen: fields.last_seen ?? fields.first_seen ?? "",
    ...(typeof fields.reason === "string" && fields.reason ? { reason: fields.reason } : {}),
  });
  if (!parsed.success) {
    at(section.line, `rule "${section.heading}" skipped: ${formatZodIssues(parsed.error.issues, { inline: true })}`);
    return { problems };
  }
  return { rule: parsed.data, problems };
}

/** The rules of a rules.md text; `file` names it in problems ("rules.md line 7: …"). */
export function parseRules(text: string, file = "rules.md"): ParsedRules {
  const split = sections(text);
  const problems = split.problems.map((p) => `${file} ${p}`);
  const rules: Rule[] = [];
  const ids = new Set<string>();
  for (const section of split.sections) {
    const { rule, problems: more } = parseSection(section, file);
    problems.push(...more);
    if (!rule) continue;
    if (ids.has(rule.id)) {
      problems.push(`${file} line ${section.line}: rule "${rule.id}" appears twice; the second is skipped`);
      continue;
    }
    ids.add(rule.id);
    rules.push(rule);
  }
  return { rules, problems };
}

function renderSource(source: RuleSource): string {
  const author = source.author.replace(/\s+/g, " ").trim() || "unknown";
  const url = source.url.replace(/\s+/g, "");
  return `  - ${source.kind} by ${author} on ${source.at}${url ? `: ${url}` : ""}`;
}

export function renderRule(rule: Rule): string {
  return [
    `## ${rule.id}`,
    "",
    rule.text,
    "",
    `- status: ${rule.status}`,
    `- scope: ${rule.scope.map((glob) => `\`${glob}\``).join(", ")}`,
    `- seen: ${rule.seen}`,
    `- first_seen: ${rule.first_seen}`,
    `- last_seen: ${rule.last_seen}`,
    ...(rule.reason ? [`- reason: ${rule.reason.replace(/\s+/g, " ").trim()}`] : []),
    ...(rule.sources.length > 0 ? ["- sources:", ...rule.sources.map(renderSource)] : []),
    "",
  ].join("\n");
}

/** What comes before the first rule: the file's title and words a person wrote there. */
export function preambleOf(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  const first = lines.findIndex((line) => HEADING.test(line));
  const preamble = (first === -1 ? lines : lines.slice(0, first)).join("\n").trimEnd();
  return preamble ? `${preamble}\n` : undefined;
}

/** The whole file: the preamble (otto's header when none), then one section per rule in the order given. */
export function renderRules(rules: readonly Rule[], preamble: string = RULES_HEADER): string {
  return [preamble, ...rules.map(renderRule)].join("\n");
}
