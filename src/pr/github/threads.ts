import { OttoError } from "../../core/index.ts";
import type { ThreadMap } from "./map.ts";
import type { GithubClient } from "./octokit.ts";

/*
 * Review threads exist only in GraphQL: which thread a review comment belongs to, whether it
 * is resolved, and the resolveReviewThread mutation.
 * https://docs.github.com/en/graphql/reference/objects#pullrequestreviewthread
 */

const THREADS_QUERY = `query otto_review_threads($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 100) { nodes { databaseId } } }
      }
    }
  }
}`;

const RESOLVE_MUTATION = `mutation otto_resolve_thread($threadId: ID!) {
  resolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
}`;

const UNRESOLVE_MUTATION = `mutation otto_unresolve_thread($threadId: ID!) {
  unresolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
}`;

interface ThreadsPage {
  repository: {
    pullRequest: {
      reviewThreads: {
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: Array<{ id: string; isResolved: boolean; comments: { nodes: Array<{ databaseId: number | null }> } }>;
      };
    } | null;
  } | null;
}

export async function fetchThreadMap(client: GithubClient, repo: string, number: number): Promise<ThreadMap> {
  const [owner, name] = repo.split("/");
  const out: ThreadMap = {};
  let cursor: string | null = null;
  do {
    const page: ThreadsPage = await client.graphql<ThreadsPage>(THREADS_QUERY, { owner, name, number, cursor });
    const threads = page.repository?.pullRequest?.reviewThreads;
    if (!threads) break;
    for (const thread of threads.nodes) {
      for (const comment of thread.comments.nodes) {
        if (comment.databaseId !== null) out[String(comment.databaseId)] = { threadId: thread.id, resolved: thread.isResolved };
      }
    }
    cursor = threads.pageInfo.hasNextPage ? threads.pageInfo.endCursor : null;
  } while (cursor);
  return out;
}

/** Resolves (or with `resolved` false reopens) the review thread holding the comment. */
export async function resolveThreadOf(
  client: GithubClient,
  repo: string,
  number: number,
  commentId: number,
  resolved = true,
): Promise<void> {
  const thread = (await fetchThreadMap(client, repo, number))[String(commentId)];
  if (!thread) {
    throw new OttoError(
      "pr_comment_not_found",
      `Review comment ${commentId} is in no review thread of ${repo}#${number}.`,
      "Check the comment id with /otto-pr status.",
    );
  }
  if (thread.resolved !== resolved) await client.graphql(resolved ? RESOLVE_MUTATION : UNRESOLVE_MUTATION, { threadId: thread.threadId });
}
