import { matchFieldLine, normalizeProse, parseList, stripComments } from "../fields.ts";
import type { Problem } from "../problems.ts";
import { scanSections, splitLines, type ScanRules, type ScannedField, type ScannedSection } from "../sections.ts";
import { TASK_FIELD_ALIASES, TASK_FIELDS, TASK_HEADING, TASK_STATUSES, type Task, type TaskList, type TaskStatus } from "./schema.ts";

type KnownField = (typeof TASK_FIELDS)[number];
/** A line that continues a list value: a bullet, or part of a JSON array spread over lines. */
const LIST_LINE = /^\s*([-*+][ \t]|["'`[\]])/;
const KNOWN = new Set<string>([...TASK_FIELDS, ...Object.keys(TASK_FIELD_ALIASES)]);

export const TASK_SCAN_RULES: ScanRules = {
  heading: TASK_HEADING,
  known: KNOWN,
  // Only the description and unknown fields may run over several lines of prose.
  isProse: (key) => key === "description" || !KNOWN.has(key),
};

// A Map, not the record: a lookup per field line stays cheap, and `constructor` is not an alias.
const ALIASES = new Map<string, string>(Object.entries(TASK_FIELD_ALIASES));

export function canonicalTaskKey(key: string): string {
  return ALIASES.get(key) ?? key;
}

const STATUS_WORDS: Readonly<Record<string, TaskStatus>> = {
  pending: "pending",
  todo: "pending",
  "not started": "pending",
  not_started: "pending",
  running: "running",
  "in progress": "running",
  in_progress: "running",
  "in-progress": "running",
  started: "running",
  completed: "completed",
  complete: "completed",
  done: "completed",
  finished: "completed",
  failed: "failed",
  failure: "failed",
  error: "failed",
  skipped: "skipped",
  skip: "skipped",
  cancelled: "skipped",
  canceled: "skipped",
};

/** Reads a status as models write it (`Completed`, `**done**`, `pending <!-- … -->`); undefined when unknown. */
export function readTaskStatus(raw: string): TaskStatus | undefined {
  const word = stripComments(raw)
    .replace(/[*_`✅]/g, "")
    .trim()
    .toLowerCase();
  return STATUS_WORDS[word];
}

export function readTaskId(raw: string): string {
  return stripComments(raw)
    .replace(/^[`"']+|[`"']+$/g, "")
    .trim();
}

/**
 * Parses tasks.md as written by people and models. Never throws: whatever cannot be read becomes
 * a Problem (1-based line) and the task gets a placeholder value, so callers decide whether to
 * ask for a repair. Cross-task rules (unique ids, dependencies) are validateTasks' job.
 */
export function parseTasks(text: string): { tasks: TaskList; problems: Problem[] } {
  const scan = scanSections(splitLines(text), TASK_SCAN_RULES);
  const problems: Problem[] = [];
  const firstTask = scan.sections[0]?.start ?? scan.lines.length;
  const orphan = scan.lines.slice(0, firstTask).findIndex((l) => KNOWN.has(canonicalTaskKey(matchFieldLine(l)?.key ?? "")));
  if (orphan >= 0) {
    problems.push({
      line: orphan + 1,
      message: `Line ${orphan + 1} is a task field but has no task heading above it; start each task with '## Task <n>: <title>'.`,
    });
  }
  if (scan.sections.length === 0) {
    problems.push({
      line: 1,
      message: "No tasks found. Each task starts with a heading like '## Task 1: <title>' followed by fields such as '- **id**: task-001'.",
    });
  }
  const tasks = scan.sections.map((section) => readTask(section, scan.lines, problems));
  const preamble = scan.preamble.join("\n") || "# Tasks";
  return { tasks: { preamble, tasks }, problems: problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)) };
}

function readTask(section: ScannedSection, lines: readonly string[], problems: Problem[]): Task {
  const number = Number(section.heading[1]);
  const title = (section.heading[2] ?? "").trim();
  const headingLine = section.start + 1;
  const fields = new Map<string, ScannedField>();
  const extra: Record<string, string> = {};
  const idField = section.fields.find((f) => canonicalTaskKey(f.key) === "id");
  const label = `Task ${number}${idField && readTaskId(idField.value) ? ` (${readTaskId(idField.value)})` : ""}`;
  const report = (line: number, message: string): void => void problems.push({ line, message });

  if (title === "") report(headingLine, `${label} has no title; write '## Task ${number}: <short title>'.`);
  for (const field of section.fields) {
    const key = canonicalTaskKey(field.key);
    const first = fields.get(key);
    if (first) {
      report(field.start + 1, `${label} has a second '${key}' field (the first is on line ${first.start + 1}); keep only one.`);
      continue;
    }
    fields.set(key, field);
    if (!(TASK_FIELDS as readonly string[]).includes(key)) extra[key] = normalizeProse([field.value, ...field.rest].join("\n"));
  }

  const get = (key: KnownField): ScannedField | undefined => fields.get(key);
  /** Lines under a one-line field, or under a list that are not list items, belong nowhere. */
  const reportStray = (key: KnownField, field: ScannedField, belongs: (line: string) => boolean): void => {
    const stray = field.rest.findIndex((l) => l.trim() !== "" && !belongs(l));
    if (stray < 0) return;
    const line = field.start + 2 + stray;
    const what = belongs("- x") ? "a list of items" : "one line";
    report(line, `${label}: line ${line} is not part of any field ('${key}' takes ${what}); move it into the description or remove it.`);
  };
  const scalar = (key: KnownField): string | undefined => {
    const field = get(key);
    if (!field) return undefined;
    reportStray(key, field, () => false);
    return stripComments(field.value) || undefined;
  };
  const missing = (key: KnownField, example: string): void =>
    report(headingLine, `${label} has no '${key}' field; add a line like '- **${key}**: ${example}' under its heading.`);

  const rawId = scalar("id");
  const id = rawId ? readTaskId(rawId) : "";
  if (!id) missing("id", `task-${String(number).padStart(3, "0")}`);

  const rawStatus = scalar("status");
  let status = rawStatus === undefined ? undefined : readTaskStatus(rawStatus);
  if (rawStatus === undefined) missing("status", "pending");
  else if (!status) {
    report((get("status")?.start ?? section.start) + 1, `${label} has status '${rawStatus}'; use one of: ${TASK_STATUSES.join(", ")}.`);
  }
  status ??= "pending";

  const rawGroup = scalar("parallel_group");
  const groupDigits = rawGroup === undefined ? undefined : /\d+/.exec(rawGroup)?.[0];
  if (rawGroup === undefined) missing("parallel_group", "1");
  else if (groupDigits === undefined) {
    report(
      (get("parallel_group")?.start ?? section.start) + 1,
      `${label} has parallel_group '${rawGroup}'; use a whole number starting at 1.`,
    );
  }

  const list = (key: "depends_on" | "files"): string[] => {
    const field = get(key);
    if (!field) return [];
    reportStray(key, field, (l) => LIST_LINE.test(l));
    return parseList(
      field.value,
      field.rest.filter((l) => LIST_LINE.test(l)),
      key === "depends_on",
    );
  };

  const descriptionField = get("description");
  let description = descriptionField ? normalizeProse([descriptionField.value, ...descriptionField.rest].join("\n")) : "";
  const firstStray = section.stray[0];
  const lastStray = section.stray[section.stray.length - 1];
  if (!descriptionField && firstStray && lastStray) {
    // Prose written under the heading instead of in a description field: it is the description.
    description = normalizeProse(lines.slice(firstStray.index, lastStray.index + 1).join("\n"));
  } else if (firstStray) {
    report(
      firstStray.index + 1,
      `${label}: line ${firstStray.index + 1} is not part of any field; move it into the description or remove it.`,
    );
  }
  if (!description) {
    if (descriptionField) report(descriptionField.start + 1, `${label} has an empty description; say what the task must do.`);
    else missing("description", "<what this task must do>");
  }

  // A command, as models write it: `npm test -- x.test.ts` in backticks or plain.
  const rawVerify = scalar("verify");
  const verify = rawVerify?.replace(/^`+|`+$/g, "").trim();
  if (get("verify") && !verify)
    report(
      (get("verify")?.start ?? section.start) + 1,
      `${label} has an empty verify field; write one command, e.g. '- **verify**: npm test -- src/x.test.ts', or remove the line.`,
    );

  return {
    id: id || `task-${String(number).padStart(3, "0")}`,
    title,
    number,
    status,
    parallel_group: groupDigits === undefined ? 1 : Number(groupDigits),
    depends_on: list("depends_on"),
    description,
    files: list("files"),
    ...(verify ? { verify } : {}),
    extra,
  };
}
