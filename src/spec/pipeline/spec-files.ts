import fs from "node:fs/promises";
import path from "node:path";
import { assertOttoPathSafe, readTextIfExists, realTarget, redact, withFileLock, writeFileAtomic } from "../../core/index.ts";
import { ARTIFACTS, type Artifact, type SpecPaths } from "../layout.ts";

/** The text of each spec file that exists. */
export type SpecDocs = Partial<Record<Artifact, string>>;

export async function readSpecDocs(paths: SpecPaths): Promise<SpecDocs> {
  const docs: SpecDocs = {};
  for (const artifact of ARTIFACTS) {
    const text = await readTextIfExists(paths[artifact]);
    if (text !== undefined) docs[artifact] = text;
  }
  return docs;
}

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

/**
 * Read-modify-write of one spec file under its lock (`<file>.lock`, shared with the execution
 * engine's status updates), written atomically. `edit` gets the current text (undefined when the
 * file does not exist) and returns the new text, or undefined to leave it as it is.
 *
 * Spec files are committed: whatever ends up in the file is redacted (token formats and
 * `secrets`), including text a model wrote into it directly, which `edit` leaves as it is.
 */
export async function updateSpecFile<T>(
  file: string,
  edit: (current: string | undefined) => { text?: string; result: T },
  secrets: readonly string[] = [],
): Promise<T> {
  const target = await realTarget(file);
  return withFileLock(target, async () => {
    const current = await readTextIfExists(target);
    const { text, result } = edit(current);
    const next = text ?? current;
    const clean = next === undefined ? undefined : redact(next, secrets);
    if (clean !== undefined && clean !== current) await writeFileAtomic(target, withNewline(clean), 0o644);
    return result;
  });
}

export async function writeSpecFile(file: string, text: string, secrets: readonly string[] = []): Promise<void> {
  await updateSpecFile(file, () => ({ text, result: undefined }), secrets);
}

/** Writes a new file under history/ (redacted: it is committed), never overwriting one (a suffix is added on a name clash). */
export async function writeHistoryFile(paths: SpecPaths, name: string, text: string, secrets: readonly string[] = []): Promise<string> {
  await assertOttoPathSafe(paths.history);
  await fs.mkdir(paths.history, { recursive: true });
  const ext = path.extname(name);
  const base = name.slice(0, name.length - ext.length);
  for (let n = 1; ; n++) {
    const file = path.join(paths.history, n === 1 ? name : `${base}-${n}${ext}`);
    try {
      await fs.writeFile(file, withNewline(redact(text, secrets)), { flag: "wx" });
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}
