import type { Config } from "../../config/index.ts";
import type { AuthorAccess, CommentAuthor, PrComment } from "../types.ts";

/*
 * Whose comments may steer otto. A comment goes to a session that runs shell commands with the
 * user's tokens in its environment, so only people who could change the repository themselves are
 * answered: GitHub users with write access (admin, maintain or write), Azure DevOps project members, and whoever
 * pr.trusted_authors lists. Pure: the backend's answers come in as data (resolve-trust.ts).
 */

export type TrustPolicy = Config["pr"]["trusted_authors"];

/**
 * GitHub's author_association values that settle it without a request: only OWNER, the account that
 * owns the repository (a user-owned repository's user, who has admin on it; an organization cannot
 * comment, so on an organization's repository its people show as MEMBER). MEMBER and COLLABORATOR
 * do not mean write access: an organization member with a read base role and a read or triage
 * collaborator carry them too, so the permission API decides for them as for everyone else.
 * https://docs.github.com/en/graphql/reference/enums#commentauthorassociation
 */
export const TRUSTED_ASSOCIATIONS: ReadonlySet<string> = new Set(["OWNER"]);

export type TrustReason = "listed" | "association" | "access" | "not_listed" | "no_access" | "lookup_failed";

export interface TrustDecision {
  trusted: boolean;
  reason: TrustReason;
}

const norm = (s: string): string => s.trim().toLowerCase();

/** The names a comment's author is known by: display name or login, sign-in name, identity id. */
export function authorNames(author: CommentAuthor): string[] {
  return [author.author, author.authorLogin, author.authorId].filter((n): n is string => n !== undefined && n.trim() !== "").map(norm);
}

export function isListed(author: CommentAuthor, policy: TrustPolicy): boolean {
  const listed = new Set(policy.logins.map(norm));
  return authorNames(author).some((n) => listed.has(n));
}

/** True when the decision needs the forge's word on the author's access (a request, cached per pass). */
export function needsLookup(comment: PrComment, policy: TrustPolicy): boolean {
  if (policy.mode === "only" || isListed(comment, policy)) return false;
  return !TRUSTED_ASSOCIATIONS.has((comment.association ?? "").toUpperCase());
}

/**
 * Whether otto acts on the comment. `access` is the forge's answer for the author when
 * needsLookup asked for one; undefined there means the lookup failed, and that is a no.
 */
export function decideTrust(comment: PrComment, policy: TrustPolicy, access?: AuthorAccess): TrustDecision {
  if (isListed(comment, policy)) return { trusted: true, reason: "listed" };
  if (policy.mode === "only") return { trusted: false, reason: "not_listed" };
  if (TRUSTED_ASSOCIATIONS.has((comment.association ?? "").toUpperCase())) return { trusted: true, reason: "association" };
  if (access === undefined) return { trusted: false, reason: "lookup_failed" };
  return access === "write" ? { trusted: true, reason: "access" } : { trusted: false, reason: "no_access" };
}

/** Why a comment is left for a person, in words for the PR document and the notification. */
export function distrustText(comment: PrComment, reason: TrustReason, provider: string): string {
  switch (reason) {
    case "not_listed":
      return `${comment.author} is not in pr.trusted_authors (mode "only")`;
    case "lookup_failed":
      return `otto could not check whether ${comment.author} may change the repository`;
    default:
      return provider === "ado"
        ? `${comment.author} is not a member of the project's teams`
        : `${comment.author} has no write access to the repository`;
  }
}
