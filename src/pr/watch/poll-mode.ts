import type { PrSkim } from "../backend.ts";
import type { PrDocument } from "../store/document.ts";

/*
 * How much of a PR a watcher cycle reads, decided from its repository's PR list (one request
 * per repository) and the document. An idle PR costs nothing beyond that list.
 */

/** full: PR, pipeline and comments; pipeline: only the checks (CI still running); skip: nothing more. */
export type PollMode = "full" | "pipeline" | "skip";

export interface PollModeInput {
  doc: PrDocument;
  /** The PR as its repository's list showed it this cycle; undefined when it was not in the list. */
  skim: PrSkim | undefined;
  now: Date;
  /** pr.full_poll_interval: what the list cannot show (a re-run someone started) is seen by then. */
  fullEveryMs: number;
  /** A cycle the user asked for reads everything. */
  force: boolean;
}

export function pollMode({ doc, skim, now, fullEveryMs, force }: PollModeInput): PollMode {
  const data = doc.data;
  if (force || !skim || data.seen_version !== skim.version) return "full";
  const last = data.full_checked ? Date.parse(data.full_checked) : Number.NaN;
  if (!Number.isFinite(last) || now.getTime() - last >= fullEveryMs) return "full";
  // Comments the comment flow has not handled yet are read again each cycle, as before; so is a
  // PR whose last poll failed (its green comment, say, may not be posted yet).
  if (data.unseen_comments > 0 || data.errors > 0) return "full";
  // CI still running (or a fix under way, whose staleness only a pipeline read can tell).
  if (data.pipeline === "pending" || data.pipeline === undefined || data.status === "fixing") return "pipeline";
  return "skip";
}
