import { EXTRA_KEY, indentOf, isBlank, matchFieldLine, type FieldLine } from "./fields.ts";

/**
 * Splits a spec file (tasks.md, questions.md) into a preamble and `## Heading` sections made of
 * `- **key**: value` fields, remembering line positions so edits can touch single lines.
 *
 * A prose field (a description, an answer) runs on until a line that is a field of the same
 * item: a known key, or a snake_case key outside a ``` fence, at the field's own indentation or
 * less. Bullets like `- item` and indented or Capitalised `- **Note**: …` sub-bullets stay in the prose.
 */
export interface ScannedField extends FieldLine {
  /** 0-based index of the field line. */
  start: number;
  /** 0-based index after the last line that belongs to the field (trailing blanks excluded). */
  end: number;
  /** The raw lines after the field line. */
  rest: string[];
}

export interface ScannedSection {
  heading: RegExpExecArray;
  /** 0-based index of the heading line. */
  start: number;
  fields: ScannedField[];
  /** Non-blank lines between the heading and the first field. */
  stray: Array<{ index: number; text: string }>;
}

export interface ScannedFile {
  lines: string[];
  preamble: string[];
  sections: ScannedSection[];
}

export interface ScanRules {
  heading: RegExp;
  known: ReadonlySet<string>;
  isProse: (key: string) => boolean;
}

const FENCE = /^\s*(```|~~~)/;
/** `---` between sections is a separator, not part of the last field. */
const SEPARATOR = /^(-{3,}|\*{3,}|_{3,})\s*$/;

export function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

export function scanSections(lines: string[], rules: ScanRules): ScannedFile {
  const preamble: string[] = [];
  const sections: ScannedSection[] = [];
  let section: ScannedSection | undefined;
  let field: ScannedField | undefined;
  let inFence = false;

  const close = (end: number, atSectionEnd: boolean): void => {
    if (!field) return;
    const drop = (l: string): boolean => isBlank(l) || (atSectionEnd && SEPARATOR.test(l));
    const rest = lines.slice(field.start + 1, end);
    while (rest.length > 0 && drop(rest[rest.length - 1] ?? "")) rest.pop();
    field.rest = rest;
    field.end = field.start + 1 + rest.length;
    field = undefined;
  };

  lines.forEach((line, index) => {
    const heading = rules.heading.exec(line);
    if (heading) {
      close(index, true);
      section = { heading, start: index, fields: [], stray: [] };
      sections.push(section);
      inFence = false;
      return;
    }
    if (!section) {
      preamble.push(line);
      return;
    }
    const match = matchFieldLine(line);
    const prose = field !== undefined && rules.isProse(field.key);
    const base = field?.indent ?? 0;
    const startsField =
      match !== undefined &&
      (!prose || (match.indent <= base && (rules.known.has(match.key) || (!inFence && EXTRA_KEY.test(match.rawKey)))));
    if (match && startsField) {
      close(index, false);
      // Properties listed, not `...match`: V8 makes object spread here ~10x slower than the rest of
      // the scan together (parsing a 50-task tasks.md: 1.4 ms against 0.15 ms), and the execute
      // engine parses under the tasks.md lock.
      const { prefix, indent, rawKey, key, value } = match;
      field = { prefix, indent, rawKey, key, value, start: index, end: index + 1, rest: [] };
      section.fields.push(field);
      inFence = false;
    } else if (field) {
      // Only a fence at the field's own column can hide field lines; deeper ones sit inside the prose.
      if (prose && FENCE.test(line) && indentOf(line) <= base) inFence = !inFence;
    } else if (!isBlank(line)) {
      section.stray.push({ index, text: line });
    }
  });
  close(lines.length, true);
  return { lines, preamble: trimBlankLines(preamble), sections };
}

export function trimBlankLines(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && isBlank(lines[start] ?? "")) start++;
  while (end > start && isBlank(lines[end - 1] ?? "")) end--;
  return lines.slice(start, end);
}

/** First field with this key in a section. */
export function findField(section: ScannedSection, key: string): ScannedField | undefined {
  return section.fields.find((f) => f.key === key);
}
