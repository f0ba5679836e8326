import { MARKERS } from "../../prompts/index.ts";
import { normalizeQuestionText } from "../questions/edit-questions.ts";
import type { NewQuestion, QuestionList } from "../questions/schema.ts";

/** One entry of a document's `## Open Questions` section. */
export interface RaisedQuestion {
  title: string;
  question: string;
  /** "Why it matters: … Assumed until answered: …", when the entry says so. */
  context?: string;
}

const SECTION = /^(#{2,3})[ \t]+Open Questions[ \t]*:?[ \t]*$/i;
const BULLET = /^[ \t]{0,3}(?:[-*+]|\d+[.)])[ \t]+(.*)$/;
const NONE = /^(?:_?\(?none\.?\)?_?|n\/a|-|—)$/i;
// `**Title**: text` or `**Title:** text`
const TITLED = /^\*\*(.+?)(?::\*\*|\*\*[ \t]*:)[ \t]*(.*)$/s;
// The prompts ask for "<question> Why it matters: <impact>. Assumed …: <default>."
const CONTEXT_START = /\s(?:\*\*)?(?:Why it matters|Assumed(?: until answered| for this design)?|Assumption|Default)(?:\*\*)?\s*:/i;

/**
 * The open questions a stage's document raises (the requirements, research and design prompts end
 * with a `## Open Questions` list). Pure; `None.` and an absent section give [].
 */
export function extractOpenQuestions(document: string): RaisedQuestion[] {
  const lines = document.split(/\r?\n/);
  const start = lines.findIndex((l) => SECTION.test(l));
  if (start < 0) return [];
  const level = SECTION.exec(lines[start] ?? "")?.[1]?.length ?? 2;
  const items: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    const heading = /^(#{1,6})[ \t]/.exec(line);
    if (heading && (heading[1]?.length ?? 0) <= level) break;
    const bullet = BULLET.exec(line);
    if (bullet && !/^\s{4,}/.test(line)) items.push([bullet[1] ?? ""]);
    else if (line.trim() && items.length > 0) items[items.length - 1]?.push(line.trim());
  }
  return items
    .map((item) => item.join(" ").trim())
    .filter((text) => text && !NONE.test(text))
    .map(readEntry);
}

const DOCUMENT_BLOCK = new RegExp(`${MARKERS.documentBegin}[\\s\\S]*?${MARKERS.documentEnd}`, "g");

/**
 * The open questions a reply lists OUTSIDE its BEGIN_DOCUMENT … END_DOCUMENT block: tasks.md has
 * no room for them (its parser allows nothing between tasks), so the tasks prompt asks for them
 * after the block. A reply without markers is all document: nothing is read from it.
 */
export function questionsOutsideDocument(reply: string): RaisedQuestion[] {
  const outside = reply.replace(DOCUMENT_BLOCK, "\n");
  return outside === reply ? [] : extractOpenQuestions(outside);
}

function readEntry(text: string): RaisedQuestion {
  const titled = TITLED.exec(text);
  const title = titled ? (titled[1] ?? "").trim() : shortTitle(text);
  const body = titled ? (titled[2] ?? "").trim() : text;
  const cut = CONTEXT_START.exec(body);
  const question = cut ? body.slice(0, cut.index).trim() : body;
  const context = cut ? body.slice(cut.index).trim() : undefined;
  return { title, question: question || body || title, ...(context ? { context } : {}) };
}

function shortTitle(text: string): string {
  const words = text.replace(/[*_`]/g, "").split(/\s+/).slice(0, 8).join(" ");
  return words.replace(/[?.:,;]+$/, "");
}

/**
 * The raised questions that questions.md does not already have (same title or same question,
 * whatever their status), as entries for appendQuestions with `source` = "<stage> (<date>)".
 */
export function newQuestions(list: QuestionList, raised: readonly RaisedQuestion[], source: string): NewQuestion[] {
  const seen = new Set(list.questions.flatMap((q) => [normalizeQuestionText(q.title), normalizeQuestionText(q.question)]));
  const out: NewQuestion[] = [];
  for (const item of raised) {
    const keys = [normalizeQuestionText(item.title), normalizeQuestionText(item.question)];
    if (keys.some((k) => k !== "" && seen.has(k))) continue;
    keys.forEach((k) => seen.add(k));
    out.push({ title: item.title, source, question: item.question, extra: item.context ? { context: item.context } : {} });
  }
  return out;
}
