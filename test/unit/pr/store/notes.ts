import type { PrDocument } from "../../../../src/pr/index.ts";

/** One read-modify-write: a line more in the Notes section and one more fix attempt. */
export function appendNote(doc: PrDocument, line: string): PrDocument {
  const notes = doc.sections.find((s) => s.title === "Notes");
  const rest = doc.sections.filter((s) => s.title !== "Notes");
  const body = notes && notes.body !== "" ? `${notes.body}\n- ${line}` : `- ${line}`;
  return { ...doc, data: { ...doc.data, fix_attempts: doc.data.fix_attempts + 1 }, sections: [...rest, { title: "Notes", body }] };
}

/** The lines of the Notes section. */
export const notesOf = (doc: PrDocument | undefined): string[] =>
  (doc?.sections.find((s) => s.title === "Notes")?.body ?? "")
    .split("\n")
    .filter(Boolean)
    .map((l) => l.replace(/^- /, ""));
