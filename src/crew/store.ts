import fs from "node:fs/promises";
import {
  OttoError,
  assertOttoPathSafe,
  readTextIfExists,
  redact,
  redactDeep,
  withFileLock,
  writeFileAtomic,
  formatZodIssues,
} from "../core/index.ts";
import type { CrewPaths } from "./paths.ts";
import { CrewFile, Message, emptyCrew, type NewMessage } from "./schema.ts";

/** Clock for message and activity times; tests pass a fixed one. */
export type Now = () => Date;

/** crew.json parsed and checked; an empty crew when there is none yet. */
export function parseCrew(text: string | undefined, file: string): CrewFile {
  if (text === undefined) return emptyCrew();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new OttoError(
      "crew_state",
      `${file} is not valid JSON: ${(error as Error).message}`,
      `Fix or delete ${file} (deleting forgets the crew).`,
    );
  }
  const parsed = CrewFile.safeParse(json);
  if (!parsed.success) {
    throw new OttoError(
      "crew_state",
      `${file} does not match otto's crew format: ${formatZodIssues(parsed.error.issues, { inline: true })}`,
      `Fix or delete ${file} (deleting forgets the crew).`,
    );
  }
  return parsed.data;
}

/**
 * The stream's messages in order. A line that does not parse (a write cut short by a crash) is
 * skipped rather than failing every reader.
 */
export function parseStream(text: string | undefined): Message[] {
  const messages: Message[] = [];
  for (const line of (text ?? "").split("\n")) {
    if (!line.trim()) continue;
    try {
      const parsed = Message.safeParse(JSON.parse(line));
      if (parsed.success) messages.push(parsed.data);
    } catch {
      // A torn line: see above.
    }
  }
  return messages;
}

export async function readCrew(paths: CrewPaths): Promise<CrewFile> {
  return parseCrew(await readTextIfExists(paths.crew), paths.crew);
}

export async function readStream(paths: CrewPaths): Promise<Message[]> {
  return parseStream(await readTextIfExists(paths.messages));
}

/** Whether crew.json records the identity the caller resolved. */
export const sameCrewId = (a: CrewFile["id"], b: CrewPaths["id"]): boolean =>
  b !== undefined && a !== undefined && a.project === b.project && a.branch === b.branch && a.home === b.home && a.tracked === b.tracked;

export interface Transaction {
  /** The crew as read under the lock; change it in place. */
  crew: CrewFile;
  /** The stream as read under the lock (without the messages posted in this transaction). */
  stream: readonly Message[];
  /** Adds a message to the stream (written when the transaction ends); returns it numbered. */
  post: (message: NewMessage) => Message;
  now: Date;
}

export interface Committed<T> {
  result: T;
  posted: Message[];
  crew: CrewFile;
}

/**
 * One change to the crew under the lock of crew.json (proper-lockfile, shared by every OpenCode
 * process and plugin instance): read both files, apply `change`, append the new messages to the
 * stream, then replace crew.json atomically. Sequence numbers come from the stream itself, so
 * they stay unique even if crew.json is older than the stream after a crash.
 *
 * Messages and the crew's state are redacted (token formats and `secrets`) before they are
 * written, so what agents and wake-ups read back, and toasts and notifications show, is too.
 */
export async function transact<T>(
  paths: CrewPaths,
  now: Now,
  change: (tx: Transaction) => T | Promise<T>,
  secrets: readonly string[] = [],
): Promise<Committed<T>> {
  return withFileLock(paths.crew, async () => {
    const crewText = await readTextIfExists(paths.crew);
    const crew = parseCrew(crewText, paths.crew);
    const streamText = await readTextIfExists(paths.messages);
    const stream = parseStream(streamText);
    const time = now();
    let seq = stream.at(-1)?.seq ?? 0;
    const posted: Message[] = [];
    const post = (message: NewMessage): Message => {
      const full = Message.parse({ ...message, text: redact(message.text, secrets), seq: ++seq, at: time.toISOString() });
      posted.push(full);
      return full;
    };
    // The identity as the caller resolved it now: a project tracked since (or renamed) is recorded.
    if (paths.id && !sameCrewId(crew.id, paths.id)) crew.id = { ...paths.id };
    const result = await change({ crew, stream, post, now: time });
    Object.assign(crew, redactDeep(crew, secrets));
    if (posted.length > 0) {
      // A torn last line (crash mid-append) must not swallow the next message.
      const prefix = streamText && !streamText.endsWith("\n") ? "\n" : "";
      await assertOttoPathSafe(paths.messages);
      await fs.appendFile(paths.messages, prefix + posted.map((m) => `${JSON.stringify(m)}\n`).join(""));
    }
    const text = `${JSON.stringify(crew, null, 2)}\n`;
    if (text !== crewText) await writeFileAtomic(paths.crew, text, 0o600);
    return { result, posted, crew };
  });
}
