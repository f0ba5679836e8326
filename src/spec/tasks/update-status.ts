import { OttoError } from "../../core/errors.ts";
import { EXTRA_KEY, formatField, normalizeKey } from "../fields.ts";
import { findField, scanSections, splitLines, type ScannedSection } from "../sections.ts";
import { canonicalTaskKey, readTaskId, TASK_SCAN_RULES } from "./parse-tasks.ts";
import { TASK_FIELDS, TASK_STATUSES, type TaskStatus } from "./schema.ts";

/**
 * Sets one task's status (and optionally extra fields such as `last_error`, or removes extra
 * fields named in `remove`) in the text of tasks.md, touching only those lines: the rest of the
 * file, comments and odd formatting included, stays byte for byte. The execution engine calls
 * this under a file lock.
 */
export function updateTaskStatus(
  text: string,
  id: string,
  status: TaskStatus,
  extra: Record<string, string> = {},
  remove: readonly string[] = [],
): string {
  if (!(TASK_STATUSES as readonly string[]).includes(status)) {
    throw new OttoError("invalid_task_status", `Unknown task status '${String(status)}'; use one of: ${TASK_STATUSES.join(", ")}.`);
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  let lines = splitLines(text);

  const section = findTask(lines, id);
  // The scan stays valid while no line is added or removed: a rewritten status line is still the
  // same field. Reusing it saves a scan of the whole file per extra field.
  let scanned: ScannedSection | undefined = section;
  const statusField = findField(section, "status");
  if (statusField) {
    // Keep the prefix and any trailing `<!-- … -->` comment; replace only the value.
    const line = lines[statusField.start] ?? "";
    const comment = /\s*<!--.*$/.exec(statusField.value)?.[0] ?? "";
    lines[statusField.start] = `${statusField.prefix}${status}${comment}`;
    if (line === lines[statusField.start] && Object.keys(extra).length === 0 && remove.length === 0) return text;
  } else {
    const idField = findField(section, "id");
    const at = idField ? idField.end : section.start + 1;
    lines.splice(at, 0, `${" ".repeat(idField?.indent ?? 0)}- **status**: ${status}`);
    scanned = undefined;
  }

  for (const [rawKey, value] of Object.entries(extra)) {
    const key = normalizeKey(rawKey);
    if (!EXTRA_KEY.test(key) || (TASK_FIELDS as readonly string[]).includes(canonicalTaskKey(key))) {
      throw new OttoError(
        "invalid_task_field",
        `Cannot set '${rawKey}' as an extra task field: use a snake_case name that is not one of ${TASK_FIELDS.join(", ")}.`,
      );
    }
    lines = setExtra(lines, scanned ?? findTask(lines, id), key, value);
    scanned = undefined;
  }
  for (const key of remove) {
    const field = (scanned ?? findTask(lines, id)).fields.find((f) => canonicalTaskKey(f.key) === normalizeKey(key));
    if (!field) continue;
    lines.splice(field.start, field.end - field.start);
    scanned = undefined;
  }
  return lines.join(eol);
}

function findTask(lines: string[], id: string): ScannedSection {
  const { sections } = scanSections(lines, TASK_SCAN_RULES);
  const ids = sections.map((s) => readTaskId(findField(s, "id")?.value ?? ""));
  const index = ids.indexOf(id);
  const section = sections[index];
  if (!section) {
    const known = ids.filter((i) => i !== "");
    throw new OttoError(
      "task_not_found",
      `No task with id '${id}' in tasks.md${known.length > 0 ? `; the ids are: ${known.join(", ")}` : " (it has no tasks)"}.`,
      "Check the id with /otto-spec task list",
    );
  }
  return section;
}

function setExtra(lines: string[], section: ScannedSection, key: string, value: string): string[] {
  const field = section.fields.find((f) => canonicalTaskKey(f.key) === key);
  const formatted = formatField(key, value);
  const next = [...lines];
  if (field) {
    const [first = "", ...rest] = formatted;
    next.splice(field.start, field.end - field.start, `${field.prefix}${first.replace(/^- \*\*[^*]+\*\*: ?/, "")}`.trimEnd(), ...rest);
  } else {
    const last = section.fields[section.fields.length - 1];
    next.splice(last ? last.end : section.start + 1, 0, ...formatted);
  }
  return next;
}
