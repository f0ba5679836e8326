import { z } from "zod";

/*
 * A signal: one event on a PR that may teach otto a team rule (docs/rules-learning.md). Signals
 * are read from the forge each time learning runs; only their ids are kept (consumed.ts in
 * src/rules/learn), so a signal is learned from once.
 */

export const SignalKind = z.enum(["agreed-fixed", "pushed-back", "review-applied", "review-dismissed", "remember"]);
export type SignalKind = z.infer<typeof SignalKind>;

/** Words from a PR kept per field: a comment is evidence, not a document. */
export const MAX_SIGNAL_TEXT = 1500;

export interface Signal {
  /** Stable across runs: the provider, the PR, the comment and the kind. */
  id: string;
  kind: SignalKind;
  /** `owner/repo#12` (GitHub), `org/project/repo#12` (Azure DevOps). */
  pr: string;
  /** The comment the signal is about: the rule's link. */
  url: string;
  /** Who taught it: the reviewer, or the PR's author for a /pr-review comment they applied or dismissed. */
  author: string;
  /** When the comment was written (ISO). */
  at: string;
  path?: string;
  line?: number;
  /** The reviewer's words, or otto's /pr-review comment; markers stripped, capped. */
  comment: string;
  /** otto's answer (agreed-fixed, pushed-back): its decision and words. */
  answer?: string;
  /** What the reviewer (or the PR's author) said after otto's answer or review comment. */
  followUp?: string;
  /** `/otto remember <rule>`: the rule as written. */
  rule?: string;
}

export const cap = (text: string, max = MAX_SIGNAL_TEXT): string => {
  const trimmed = text.trim();
  return trimmed.length > max ? `${trimmed.slice(0, max)}…` : trimmed;
};
