import fs from "node:fs/promises";
import path from "node:path";
import { xdgPaths, type Env } from "../core/paths.ts";
import type { AccountLabels } from "./account.ts";
import type { Usage } from "./usage.ts";

/**
 * Every model call of otto's, one JSON line each, in $XDG_DATA_HOME/otto/cost/ledger.jsonl: the
 * record `/otto-cost` reports from and the watcher's daily caps are read from. One line per
 * finished assistant message, appended as it finishes, so a crash loses nothing already spent and
 * a long-lived session (a crew agent) is on record before it ends. Lines are small, so each append
 * lands whole (O_APPEND).
 */
export interface LedgerEntry {
  /** When the call finished (ISO). */
  at: string;
  session: string;
  message: string;
  /** "provider/model". */
  model: string;
  agent?: string;
  /** The accounts from the run down to the attempt, e.g. ["execute demo", "phase 1", "task 1.2", "attempt 1"]. */
  path: string[];
  labels: AccountLabels;
  usage: Usage;
}

export function ledgerFile(env: Env): string {
  return path.join(xdgPaths(env).ottoDataDir, "cost", "ledger.jsonl");
}

export async function appendLedger(file: string, entries: readonly LedgerEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.appendFile(file, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""), { mode: 0o600 });
}

/** The entries at or after `since` (all without it); a torn or foreign line is skipped. */
export async function readLedger(file: string, since?: Date): Promise<LedgerEntry[]> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const out: LedgerEntry[] = [];
  const from = since?.toISOString();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const entry = JSON.parse(line) as LedgerEntry;
      if (typeof entry.at !== "string" || typeof entry.usage !== "object" || entry.usage === null) continue;
      if (from !== undefined && entry.at < from) continue;
      out.push(entry);
    } catch {
      // A line cut by a crash mid-append: the rest of the ledger still counts.
    }
  }
  return out;
}
