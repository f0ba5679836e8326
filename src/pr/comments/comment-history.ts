import { redact, oneLine } from "../../core/index.ts";
import { formatUsage, type Usage } from "../../cost/index.ts";
import { logLine, type PrDocument } from "../store/document.ts";
import { boundSeen } from "../store/seen.ts";
import type { PrComment } from "../types.ts";
import type { Decision } from "./decision.ts";

/*
 * The `## Comment History` section of a PR document: one entry per comment otto answered or failed to answer, appended verbatim.
 * Pure; the flow writes it through store.update.
 */

export const HISTORY_TITLE = "Comment History";
/** What a new document's section says before anything is handled (src/pr/commands/add.ts). */
const EMPTY = /^_No comments handled yet\._$/;
/** Quoted comment bodies and replies are cut to this many characters. */
const EXCERPT = 300;

export interface HistoryEntry {
  comment: PrComment;
  /** When otto handled it. */
  time: string;
  /** Absent when no decision was reached (the session failed). */
  decision?: Decision | undefined;
  /** What otto did: "Fixed in abc1234", "Replied; thread resolved (by design)", "Failed: …". */
  action: string;
  /** The reply as posted. */
  reply?: string | undefined;
  /** The model and its session, for a post-mortem. */
  model?: string | undefined;
  /** What answering it cost. */
  spend?: Usage | undefined;
}

function excerpt(text: string, secrets: readonly string[]): string {
  return oneLine(redact(text, secrets), EXCERPT + 1);
}

export function renderHistoryEntry(entry: HistoryEntry, secrets: readonly string[] = []): string {
  const { comment } = entry;
  const where = comment.path ? `${comment.path}${comment.line ? `:${comment.line}` : ""}` : "the PR conversation";
  const lines = [
    `### Comment ${comment.id} — @${comment.author} at ${comment.createdAt}`,
    `- **Where**: ${where}${comment.url ? ` ([link](${comment.url}))` : ""}`,
    `- **Body**: "${excerpt(comment.body, secrets)}"`,
    `- **Decision**: ${entry.decision ?? "none"}`,
    `- **Action**: ${excerpt(entry.action, secrets)} (${entry.time})`,
  ];
  if (entry.reply) lines.push(`- **Reply**: "${excerpt(entry.reply, secrets)}"`);
  if (entry.model) lines.push(`- **Model**: ${entry.model}`);
  if (entry.spend) lines.push(`- **Spend**: ${formatUsage(entry.spend)}`);
  return lines.join("\n");
}

export interface CommentRecord {
  /** Comment ids to add to seen_comment_ids (answered, recovered, skipped). */
  seen: readonly string[];
  entries: readonly HistoryEntry[];
  /** Failed attempts by comment id (replaces the document's map). */
  failures?: Readonly<Record<string, number>>;
  /** Reviewer comments still unhandled after this record. */
  unseen?: number;
  log: readonly string[];
  now: string;
  secrets?: readonly string[];
  /** The forge's comments: their creation times bound the seen ids (store/seen.ts). */
  comments?: readonly PrComment[];
}

/** The document with the record applied: seen ids added, entries appended, log lines stamped. */
export function recordComments(doc: PrDocument, record: CommentRecord): PrDocument {
  const seen = [...doc.data.seen_comment_ids];
  for (const id of record.seen) if (!seen.includes(id)) seen.push(id);
  const kept = boundSeen({ ids: seen, before: doc.data.seen_before }, record.comments ?? []);
  const bounded = { seen_comment_ids: [...kept.ids], ...(kept.before !== undefined ? { seen_before: kept.before } : {}) };
  const sections = [...doc.sections];
  if (record.entries.length > 0) {
    const rendered = record.entries.map((e) => renderHistoryEntry(e, record.secrets));
    const index = sections.findIndex((s) => s.title === HISTORY_TITLE);
    const body = index >= 0 ? (sections[index]?.body ?? "") : "";
    const kept = EMPTY.test(body.trim()) ? "" : body.trim();
    const section = { title: HISTORY_TITLE, body: [kept, ...rendered].filter(Boolean).join("\n\n") };
    if (index >= 0) sections[index] = section;
    else sections.push(section);
  }
  return {
    ...doc,
    data: {
      ...doc.data,
      ...bounded,
      ...(record.failures ? { comment_failures: { ...record.failures } } : {}),
      ...(record.unseen !== undefined ? { unseen_comments: record.unseen } : {}),
    },
    sections,
    log: [...doc.log, ...record.log.map((l) => logLine(record.now, l))],
  };
}
