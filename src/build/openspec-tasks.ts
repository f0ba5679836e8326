/** One checkbox task of an OpenSpec change's tasks.md (`- [ ] 1.1 Add the route`). */
export interface CheckboxTask {
  /** The number before the text (`1.1`), or `line-N` when there is none. */
  id: string;
  title: string;
  done: boolean;
  /** 0-based line index in the file. */
  line: number;
}

const CHECKBOX = /^(\s*[-*]\s+)\[([ xX])\](\s+)(.*)$/;
const NUMBERED = /^(\d+(?:\.\d+)*)\.?\s+(.*)$/;

/** Every checkbox line, top to bottom (headings and prose are not tasks). Pure. */
export function parseCheckboxTasks(text: string): CheckboxTask[] {
  const tasks: CheckboxTask[] = [];
  text.split(/\r?\n/).forEach((raw, line) => {
    const match = CHECKBOX.exec(raw);
    if (!match) return;
    const body = (match[4] ?? "").trim();
    const numbered = NUMBERED.exec(body);
    tasks.push({
      id: numbered?.[1] ?? `line-${line + 1}`,
      title: (numbered?.[2] ?? body).trim(),
      done: match[2] !== " ",
      line,
    });
  });
  return tasks;
}

/** Ticks or clears one task's checkbox, leaving every other byte as it was. Pure. */
export function setCheckboxTask(text: string, id: string, done: boolean): string {
  const task = parseCheckboxTasks(text).find((t) => t.id === id);
  if (!task) return text;
  const lines = text.split("\n");
  const current = lines[task.line] ?? "";
  lines[task.line] = current.replace(
    CHECKBOX,
    (_m, lead: string, _box: string, gap: string, rest: string) => `${lead}[${done ? "x" : " "}]${gap}${rest}`,
  );
  return lines.join("\n");
}
