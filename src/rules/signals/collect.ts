import { formatError, redact } from "../../core/index.ts";
import type { PrBackend } from "../../pr/backend.ts";
import { resolveTrust, type TrustPolicy } from "../../pr/comments/index.ts";
import type { PrComment, PrInfo } from "../../pr/types.ts";
import { extractSignals, PR_AUTHOR } from "./extract.ts";
import type { Signal } from "./signal.ts";

/*
 * The I/O around extract.ts: the repository's PRs that changed since `since`, each one's comments
 * and reviews, and the trust gate of the comment flow (src/pr/comments/resolve-trust.ts) on every
 * author, the PR's own author included. A PR that cannot be read is skipped and named.
 */

/** PRs read per run at most: learning looks at recent review, not the whole history. */
export const MAX_LEARN_PRS = 100;

export interface CollectInput {
  backend: PrBackend;
  /** As the backend spells it: `owner/repo`, `org/project/repo`. */
  repo: string;
  since: Date;
  policy: TrustPolicy;
  secrets: readonly string[];
  log: (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => void;
  maxPrs?: number;
}

export interface Collected {
  signals: Signal[];
  /** PRs read. */
  prs: number;
  /** What could not be read, in words. */
  problems: string[];
}

export async function collectSignals(input: CollectInput): Promise<Collected> {
  const { backend } = input;
  if (!backend.listRecentPrs) return { signals: [], prs: 0, problems: [`${backend.name} cannot list a repository's PRs`] };
  const prs = await backend.listRecentPrs(input.repo, input.since, input.maxPrs ?? MAX_LEARN_PRS);
  const signals: Signal[] = [];
  const problems: string[] = [];
  let me: string | undefined;
  for (const pr of prs) {
    try {
      me ??= await backend.currentUser(pr);
      const [comments, reviews] = await Promise.all([backend.getComments(pr), backend.getReviews(pr)]);
      const trust = await resolveTrust({
        backend,
        pr,
        comments: [...comments, authorAsComment(pr)],
        policy: input.policy,
        secrets: input.secrets,
        log: input.log,
      });
      signals.push(...extractSignals({ pr, comments, reviews, me, trusted: (id) => trust.get(id)?.trusted === true }));
    } catch (error) {
      const problem = `${pr.repo}#${pr.number}: ${redact(formatError(error), input.secrets)}`;
      input.log("warn", `rules learning could not read ${problem}`);
      problems.push(problem);
    }
  }
  return { signals, prs: prs.length, problems };
}

/** The PR's author as the trust gate takes a comment's author (they apply or dismiss otto's review comments). */
function authorAsComment(pr: PrInfo): PrComment {
  return {
    id: PR_AUTHOR,
    kind: "conversation",
    author: pr.author,
    body: "",
    createdAt: pr.createdAt,
    resolved: false,
    ...(pr.authorId ? { authorId: pr.authorId } : {}),
    ...(pr.authorLogin ? { authorLogin: pr.authorLogin } : {}),
  };
}
