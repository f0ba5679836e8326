import { z } from "zod";

/*
 * Team rules (docs/rules.md): what otto learned from reviews or was told, kept in the repository's
 * `.otto/rules.md` and, for one person's preferences, in otto's user config folder. The schemas
 * here are the shared contract of the rule file, the store and learning (src/rules/learn).
 */

/** The longest rule text kept: a rule is one or a few sentences, and every prompt carries it. */
export const MAX_RULE_TEXT = 500;

/** Rules kept in one file; past it the oldest rejected and retired ones leave first (store.ts). */
export const MAX_RULES = 200;

/** Sources kept per rule: the newest, enough to show where it came from. */
export const MAX_SOURCES = 20;

export const RULE_ID = /^r-[0-9a-f]{6}$/;

export const RuleSourceKind = z.enum(["agreed-fixed", "pushed-back", "review-applied", "review-dismissed", "remember", "added"]);
export type RuleSourceKind = z.infer<typeof RuleSourceKind>;

/** One event behind a rule, with its link (a PR comment, a thread), who and when. */
export const RuleSource = z.object({
  kind: RuleSourceKind,
  url: z.string(),
  author: z.string(),
  /** ISO 8601 */
  at: z.string(),
});
export type RuleSource = z.infer<typeof RuleSource>;

export const RuleStatus = z.enum(["pending", "accepted", "rejected", "retired"]);
export type RuleStatus = z.infer<typeof RuleStatus>;

/**
 * Plain text, one paragraph: no newlines, no code fences, capped. Prompts fence a rule as
 * untrusted text; a fence inside it could end that fence early.
 */
export const RuleText = z
  .string()
  .transform((text) => text.replace(/\s+/g, " ").trim())
  .pipe(
    z
      .string()
      .min(1, "a rule needs text")
      .max(MAX_RULE_TEXT, `a rule's text is at most ${MAX_RULE_TEXT} characters`)
      .refine((text) => !text.includes("```") && !text.includes("~~~"), "a rule's text may not contain a code fence"),
  );

/** A path glob relative to the repository root: `**` any depth, `*` within a segment. */
export const RuleGlob = z
  .string()
  .min(1)
  .refine((glob) => !glob.startsWith("/") && !glob.split("/").includes(".."), "a scope is a glob relative to the repository root");

export const Rule = z.object({
  /** "r-" + 6 lowercase hex, stable: made once from the text (store.ts) and never recomputed. */
  id: z.string().regex(RULE_ID, 'a rule id is "r-" and 6 lowercase hex digits'),
  text: RuleText,
  /** ["**"] = the whole repository */
  scope: z.array(RuleGlob).min(1),
  status: RuleStatus,
  sources: z.array(RuleSource),
  /** How many signals supported it. */
  seen: z.number().int().nonnegative(),
  first_seen: z.string(),
  last_seen: z.string(),
  /** Why it was retired or rejected, when someone said (optional; not in the shared contract's first cut). */
  reason: z.string().optional(),
});
export type Rule = z.infer<typeof Rule>;

/** What learning or `/otto-rules add` proposes: a rule before it has an id and a status. */
export const RuleProposal = Rule.omit({ id: true, status: true, reason: true });
export type RuleProposal = z.infer<typeof RuleProposal>;
