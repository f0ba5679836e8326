import { formatError, redact } from "../../core/index.ts";
import type { PrBackend } from "../backend.ts";
import { authorKey, type AuthorAccess, type CommentAuthor, type PrComment, type PrInfo } from "../types.ts";
import { decideTrust, needsLookup, type TrustDecision, type TrustPolicy } from "./trust.ts";

/*
 * The I/O around trust.ts: asks the forge about the authors whose comments do not settle it
 * themselves (one request per author on GitHub, the project's teams once on Azure DevOps; the
 * backend keeps the answers for its life), then decides each comment. A failed lookup trusts
 * nobody it was asked about.
 */

export interface ResolveTrustInput {
  backend: PrBackend;
  pr: PrInfo;
  comments: readonly PrComment[];
  policy: TrustPolicy;
  secrets: readonly string[];
  log: (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => void;
}

/** The trust decision of each comment, by comment id. */
export async function resolveTrust(input: ResolveTrustInput): Promise<Map<string, TrustDecision>> {
  const { backend, pr, comments, policy } = input;
  const ask = new Map<string, CommentAuthor>();
  for (const c of comments)
    if (needsLookup(c, policy))
      ask.set(authorKey(c), {
        author: c.author,
        ...(c.authorId ? { authorId: c.authorId } : {}),
        ...(c.authorLogin ? { authorLogin: c.authorLogin } : {}),
      });
  let access = new Map<string, AuthorAccess>();
  if (ask.size > 0) {
    try {
      access = await backend.authorAccess(pr, [...ask.values()]);
    } catch (error) {
      input.log(
        "warn",
        `could not check who may change ${pr.repo}; comments by ${[...ask.values()].map((a) => a.author).join(", ")} are left for a person`,
        {
          error: redact(formatError(error), input.secrets),
        },
      );
    }
  }
  return new Map(comments.map((c) => [c.id, decideTrust(c, policy, access.get(authorKey(c)))]));
}
