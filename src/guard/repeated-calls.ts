import { createHash } from "node:crypto";
import { redact } from "../core/redact.ts";

/*
 * The repeated-tool-call breaker's counting, pure: which calls of a session are the same call, and
 * when one has been made too often. session-guard.ts refuses the call and aborts the session.
 *
 * What counts is the same call *without a new call between them*: the counts start over whenever
 * the session makes a call it never made before. Counting the whole session ("total") would stop
 * an executor that edits, runs `npm test`, edits again, … five times while it honestly fixes a
 * test; here its edits differ, so each is a new call and starts the counts over. Counting only consecutive
 * calls misses a model cycling through two or three calls (read a, run the tests, read a, run the
 * tests, …), the commonest loop; counting within the last K calls catches that cycle but also
 * stops the honest edit-and-test cycle. A session that makes nothing but calls it already made is
 * going round in circles, however its cycle is ordered.
 */

interface SessionCalls {
  /** Every call the session made (hashes: a write's arguments hold a whole file). */
  seen: Set<string>;
  /** Counts since the last new call. */
  counts: Map<string, number>;
}

/** The calls of each session, counted. */
export class RepeatedCalls {
  readonly #sessions = new Map<string, SessionCalls>();

  /** Counts one call; returns how often it was made since the session's last new call, this one included. */
  note(sessionID: string, tool: string, args: unknown): number {
    let calls = this.#sessions.get(sessionID);
    if (!calls) this.#sessions.set(sessionID, (calls = { seen: new Set(), counts: new Map() }));
    const key = callKey(tool, args);
    if (!calls.seen.has(key)) {
      calls.seen.add(key);
      calls.counts.clear();
    }
    const count = (calls.counts.get(key) ?? 0) + 1;
    calls.counts.set(key, count);
    return count;
  }

  /** Starts the session's counts over (it was stopped, or deleted). */
  forget(sessionID: string): void {
    this.#sessions.delete(sessionID);
  }
}

/** Why a session is stopped: "stopped: called bash `npm test` with the same arguments 5 times". */
export function repeatedCallReason(tool: string, args: unknown, count: number): string {
  return `stopped: called ${describeCall(tool, args)} with the same arguments ${count} times`;
}

/** The call as one key: the tool and its arguments as JSON with sorted keys, hashed. */
export function callKey(tool: string, args: unknown): string {
  return createHash("sha256").update(tool).update("\0").update(stableJson(args)).digest("base64url");
}

/** JSON with object keys sorted at every level, so `{a, b}` and `{b, a}` are one call. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => stableJson(v ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Longest argument quoted in the reason. */
const SHOWN = 80;

/** "bash `npm test`", "read `src/a.ts`": the tool and the argument that says what the call does. */
export function describeCall(tool: string, args: unknown): string {
  const record = args !== null && typeof args === "object" ? (args as Record<string, unknown>) : {};
  const main = ["command", "filePath", "file_path", "path", "pattern", "url", "query"]
    .map((k) => record[k])
    .find((v) => typeof v === "string" && v.trim() !== "");
  const shown = typeof main === "string" ? main : stableJson(args);
  const line = redact(shown.replace(/\s+/g, " ").trim());
  return `${tool} \`${line.length > SHOWN ? `${line.slice(0, SHOWN - 1)}…` : line}\``;
}
