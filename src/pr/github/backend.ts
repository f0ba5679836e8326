import { OttoError, redact, errorLine } from "../../core/index.ts";
import { normalizeRemoteUrl } from "../../workspace/index.ts";
import { parseDuration } from "../../config/index.ts";
import { writeLimiterOption, type BackendDeps, type CallOptions, type PrBackend } from "../backend.ts";
import { cliToken, lazy } from "../token.ts";
import { authorKey, type AuthorAccess, type PrInfo } from "../types.ts";
import { conditionalGet, getAllPages } from "./conditional.ts";
import { githubError } from "./errors.ts";
import { isConnectFailure } from "../no-answer.ts";
import { githubHosts, locateGithubId, parseGithubUrl, repoParams } from "./locate.ts";
import {
  compactIssueComment,
  compactReviewComment,
  compactRun,
  compactStatus,
  mapComments,
  mapPull,
  mapReview,
  mergeChecks,
  type CheckRunPayload,
  type IssueCommentPayload,
  type PullPayload,
  type ReviewCommentPayload,
  type ReviewPayload,
  type StatusPayload,
  type ThreadMap,
} from "./map.ts";
import type { GithubClient } from "./octokit.ts";
import { postOnce, uncertainWrite, withPostMarker } from "../post-once.ts";
import { fetchThreadMap, resolveThreadOf } from "./threads.ts";
import { skimOpenPulls } from "./skim.ts";
import { recentPulls } from "./recent.ts";
import { githubBaseCheck } from "./base-check.ts";
import { hasMarker, issueCommentsHave, reviewCommentsHave, runGithubWorkflow } from "./workflow.ts";
import { cutNote, readCapped } from "../read-capped.ts";

/*
 * One file for one job: the GitHub implementation of the PR backend interface (src/pr/backend.ts).
 * Its methods share one Octokit client (throttling, retries, conditional requests) and the bounds
 * on what is read; split by endpoint it would scatter one interface over files that each need all
 * of that. The pure parts live beside it (mapping, logs, GraphQL threads).
 */

/** Job logs can be megabytes; the end holds the failure. */
const MAX_LOG_BYTES = 200_000;
/**
 * Pages of 100 read per comment list (conversation, review): 2,000 comments in all. A PR with
 * more is a flood; the newest beyond the bound are not read (the lists come oldest first).
 */
export const MAX_COMMENT_PAGES = 10;

/** The permission API's answers that can push to the repository (the docs' legacy roles, and maintain should it appear). */
const WRITE_PERMISSIONS: ReadonlySet<string> = new Set(["admin", "maintain", "write"]);

const numericId = (commentId: string, kind: "issue" | "review"): number | undefined => {
  const match = new RegExp(`^${kind}-(\\d+)$`).exec(commentId);
  return match ? Number(match[1]) : undefined;
};

/** The GitHub backend: REST through Octokit (throttled, retried, conditional), threads through GraphQL. */
export function createGithubBackend(deps: BackendDeps): PrBackend {
  const settings = deps.config.pr.providers.github;
  const hosts = githubHosts(settings);
  const apiHost = new URL(settings.api_url).hostname;
  const setting = { apiUrl: settings.api_url, anonymous: false };
  const client = lazy(async (): Promise<GithubClient> => {
    const token =
      settings.token ||
      deps.env.GH_TOKEN ||
      (await cliToken(deps, "gh", ["auth", "token", "--hostname", apiHost === "api.github.com" ? "github.com" : apiHost]));
    if (!token) deps.log("no GitHub token (config, GITHUB_TOKEN, GH_TOKEN or gh auth token): requests are anonymous");
    setting.anonymous = !token;
    // Octokit is loaded on first use, so loading the plugin stays cheap.
    const { createGithubClient } = await import("./octokit.ts");
    return createGithubClient({
      apiUrl: settings.api_url,
      token,
      fetch: deps.fetch,
      timeoutMs: parseDuration(deps.config.pr.request_timeout),
      retryBaseMs: deps.retryBaseMs,
      log: (message) => deps.log(redact(message)),
      ...writeLimiterOption(settings.pause_writes),
    });
  });

  async function call<T>(what: string, run: (octokit: GithubClient) => Promise<T>): Promise<T> {
    try {
      return await run(await client());
    } catch (error) {
      throw githubError(error, what, setting);
    }
  }

  /**
   * One content write through postOnce: an answer of 5xx or none at all leaves the outcome
   * unknown (the write is not retried by Octokit); `find` looks for the post's marker.
   */
  const post = (
    what: string,
    write: (octokit: GithubClient, marker: string) => Promise<unknown>,
    find: (octokit: GithubClient, marker: string) => Promise<boolean>,
  ): Promise<void> =>
    call(what, async (octokit) => {
      await postOnce({
        write: async (marker) => {
          try {
            await write(octokit, marker);
          } catch (error) {
            const status = (error as { status?: unknown } | null)?.status;
            // An answer below 500, or no connection at all: the write was not applied.
            if ((typeof status === "number" && status < 500) || isConnectFailure(error)) throw error;
            throw uncertainWrite(`GitHub: ${what}`, redact(error instanceof Error ? error.message : String(error)), error);
          }
        },
        find: (marker) => find(octokit, marker),
        sleep: deps.sleep,
        settleMs: deps.retryBaseMs,
        log: (message) => deps.log(`${what}: ${message}`),
      });
    });

  // The token's user never changes for a backend's life (the config is read again each cycle).
  const me = lazy(() =>
    call("the token's user", async (octokit) => {
      try {
        return (await octokit.request("GET /user")).data.login;
      } catch (error) {
        // Installation tokens (a GitHub App's, GitHub Actions' own) may not read /user: "Resource not
        // accessible by integration". Their author is a bot whose login otto is told, never guesses.
        // https://docs.github.com/en/rest/users/users#get-the-authenticated-user (a rate limit's 403 says otherwise)
        const refused = (error as { status?: unknown }).status === 403 && /not accessible by integration/i.test(String(error));
        if (!refused) throw error;
        if (settings.bot_login) return settings.bot_login;
        throw new OttoError(
          "github_identity_unknown",
          "The GitHub token cannot read its own user (GET /user answers 403: an App's or GitHub Actions' token), so otto cannot tell its own comments from others'.",
          "Set pr.providers.github.bot_login (or OTTO_GITHUB_BOT_LOGIN) to the login its comments show: github-actions[bot] for the Actions token, <app-slug>[bot] for a GitHub App.",
        );
      }
    }),
  );
  // Permissions by `repo login`, kept for the backend's life: one watcher cycle or one command.
  const permissions = new Map<string, Promise<AuthorAccess>>();
  const permissionOf = (pr: PrInfo, login: string): Promise<AuthorAccess> => {
    const key = `${pr.repo.toLowerCase()} ${login.toLowerCase()}`;
    let access = permissions.get(key);
    if (!access) {
      access = call(`the permission of ${login} on ${pr.repo}`, async (octokit) => {
        try {
          // https://docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user
          // `permission` is the legacy base role (maintain shows as write, triage as read); role_name
          // may be a custom role, so it is not read. Anything else (read, none, an unknown value) is a no.
          const { data } = await octokit.request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", {
            ...repoParams(pr),
            username: login,
          });
          return WRITE_PERMISSIONS.has(data.permission) ? "write" : "none";
        } catch (error) {
          // 404: not a collaborator (or no such user).
          if ((error as { status?: unknown }).status === 404) return "none";
          throw error;
        }
      });
      // A failed lookup is not remembered: the next pass asks again.
      access.catch(() => permissions.delete(key));
      permissions.set(key, access);
    }
    return access;
  };

  const backend: PrBackend = {
    name: "github",
    matchesUrl: (url) => hosts.has(url.hostname.toLowerCase()),
    parseUrl: (url) => parseGithubUrl(url, hosts),
    locateId: (id, context) => locateGithubId(id, context, hosts),

    repoOfRemote: (remoteUrl) => {
      const [host = "", owner, repo, ...rest] = normalizeRemoteUrl(remoteUrl)?.split("/") ?? [];
      return hosts.has(host) && owner && repo && rest.length === 0 ? `${owner}/${repo}` : undefined;
    },

    findOpenPr: (repo, branch) =>
      call(`the open pull request of ${branch} in ${repo}`, async (octokit) => {
        const { owner, repo: name } = repoParams({ repo });
        // https://docs.github.com/en/rest/pulls/pulls#list-pull-requests (head: `owner:branch`)
        const { data } = await octokit.request("GET /repos/{owner}/{repo}/pulls", {
          owner,
          repo: name,
          head: `${owner}:${branch}`,
          state: "open",
          per_page: 1,
        });
        const first = data[0];
        return first ? { provider: "github" as const, repo, number: first.number } : undefined;
      }),

    createPr: (pr) =>
      call(`a pull request from ${pr.source} in ${pr.repo}`, async (octokit) => {
        const { owner, repo } = repoParams(pr);
        let number: number;
        try {
          // https://docs.github.com/en/rest/pulls/pulls#create-a-pull-request
          const { data } = await octokit.request("POST /repos/{owner}/{repo}/pulls", {
            owner,
            repo,
            head: pr.source,
            base: pr.target,
            title: pr.title,
            body: pr.body,
            draft: pr.draft,
          });
          number = data.number;
        } catch (error) {
          const status = (error as { status?: unknown } | null)?.status;
          if (typeof status === "number" && status < 500) throw error;
          // No answer or a 5xx: the PR may exist. Look before anyone sends it again.
          await deps.sleep(deps.retryBaseMs);
          const found = await backend.findOpenPr(pr.repo, pr.source).catch(() => undefined);
          if (!found)
            throw uncertainWrite(
              `GitHub: opening a pull request from ${pr.source}`,
              redact(error instanceof Error ? error.message : String(error)),
              error,
            );
          number = found.number;
        }
        const notes: string[] = [];
        if (pr.reviewers.length > 0) {
          try {
            // https://docs.github.com/en/rest/pulls/review-requests#request-reviewers-for-a-pull-request (idempotent)
            await octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", {
              owner,
              repo,
              pull_number: number,
              reviewers: pr.reviewers,
            });
            notes.push(`Review requested from ${pr.reviewers.join(", ")}.`);
          } catch (error) {
            notes.push(`Reviewers not requested (${errorLine(githubError(error, "the review request"))}); add them on the PR page.`);
          }
        }
        return { pr: { provider: "github" as const, repo: pr.repo, number }, notes };
      }),

    getPr: (pr, options: CallOptions = {}) =>
      call(`pull request ${pr.repo}#${pr.number}`, async (octokit) => {
        const pull = await conditionalGet(
          octokit,
          options.cache,
          "GET /repos/{owner}/{repo}/pulls/{pull_number}",
          { ...repoParams(pr), pull_number: pr.number },
          (data) => mapPull(pr, data as PullPayload),
          options,
        );
        return pull.value;
      }),

    skimRepo: (repo, tracked, options: CallOptions = {}) =>
      call(`the open pull requests of ${repo}`, (octokit) => skimOpenPulls(octokit, repo, tracked, options)),

    listRecentPrs: (repo, since, max) =>
      call(`the pull requests of ${repo} updated since ${since.toISOString()}`, (octokit) => recentPulls(octokit, repo, since, max)),

    getPipelineStatus: (pr, options: CallOptions = {}) =>
      call(`checks of ${pr.repo}#${pr.number}`, async (octokit) => {
        const params = { ...repoParams(pr), ref: pr.headSha };
        const [runs, combined] = await Promise.all([
          conditionalGet(
            octokit,
            options.cache,
            "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
            { ...params, per_page: 100 },
            (data) => (data as { check_runs: CheckRunPayload[] }).check_runs.map(compactRun),
            options,
          ),
          conditionalGet(
            octokit,
            options.cache,
            "GET /repos/{owner}/{repo}/commits/{ref}/status",
            { ...params, per_page: 100 },
            (data) => (data as { statuses: StatusPayload[] }).statuses.map(compactStatus),
            options,
          ),
        ]);
        return mergeChecks(pr.headSha, runs.value, combined.value);
      }),

    baseCheck: (pr, name, options: CallOptions = {}) =>
      call(`check ${name} on ${pr.repo}@${pr.targetBranch}`, (octokit) => githubBaseCheck(octokit, pr, name, options)),

    getBuildLogs: (pr, logId) =>
      call(`logs of job ${logId} in ${pr.repo}`, async (octokit) => {
        // Answers 302 to a short-lived URL; fetch follows it (and drops the Authorization header).
        // The body is streamed, not parsed: a log of any size costs at most MAX_LOG_BYTES of memory.
        const response = await octokit.request("GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", {
          ...repoParams(pr),
          job_id: Number(logId),
          request: { parseSuccessResponseBody: false },
        });
        const data: unknown = response.data;
        const log =
          typeof data === "string"
            ? { text: data.slice(-MAX_LOG_BYTES), truncated: data.length > MAX_LOG_BYTES }
            : await readCapped(data as ReadableStream<Uint8Array>, { maxBytes: MAX_LOG_BYTES, keep: "tail" });
        return redact(log.truncated ? `${cutNote(MAX_LOG_BYTES)}\n${log.text}` : log.text);
      }),

    currentUser: () => me(),

    async authorAccess(pr, authors) {
      const out = new Map<string, AuthorAccess>();
      for (const author of authors) {
        const key = authorKey(author);
        if (!out.has(key)) out.set(key, await permissionOf(pr, author.author));
      }
      return out;
    },

    getComments: (pr, options: CallOptions = {}) =>
      call(`comments of ${pr.repo}#${pr.number}`, async (octokit) => {
        const params = { ...repoParams(pr), per_page: 100 };
        const capped = (kind: string) => () =>
          deps.log(
            `${pr.repo}#${pr.number} has more than ${MAX_COMMENT_PAGES * 100} ${kind} comments: otto read the first ${MAX_COMMENT_PAGES * 100} and stopped`,
          );
        const pages = { ...options, paginate: true, maxPages: MAX_COMMENT_PAGES };
        const [issue, review] = await Promise.all([
          conditionalGet(
            octokit,
            options.cache,
            "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
            { ...params, issue_number: pr.number },
            (d) => (d as IssueCommentPayload[]).map(compactIssueComment),
            { ...pages, onCapped: capped("conversation") },
          ),
          conditionalGet(
            octokit,
            options.cache,
            "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments",
            { ...params, pull_number: pr.number },
            (d) => (d as ReviewCommentPayload[]).map(compactReviewComment),
            { ...pages, onCapped: capped("review") },
          ),
        ]);
        // Thread state costs GraphQL points, so it is asked only when the review comments changed.
        const threadKey = `threads ${pr.repo}#${pr.number}`;
        const cachedThreads = options.cache?.get(threadKey)?.value as ThreadMap | undefined;
        let threads: ThreadMap = cachedThreads ?? {};
        if (review.value.length > 0 && (review.changed || !cachedThreads)) {
          threads = await fetchThreadMap(octokit, pr.repo, pr.number);
          options.cache?.set(threadKey, { etag: "", value: threads });
        }
        return mapComments(issue.value, review.value, threads);
      }),

    getReviews: (pr, options: CallOptions = {}) =>
      call(`reviews of ${pr.repo}#${pr.number}`, async (octokit) => {
        const params = { ...repoParams(pr), pull_number: pr.number, per_page: 100 };
        const reviews = await conditionalGet(
          octokit,
          options.cache,
          "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
          params,
          (d) => (d as ReviewPayload[]).map(mapReview),
          { ...options, paginate: true },
        );
        return reviews.value;
      }),

    postComment: (pr, body) =>
      post(
        `a new comment on ${pr.repo}#${pr.number}`,
        (octokit, marker) =>
          octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
            ...repoParams(pr),
            issue_number: pr.number,
            body: withPostMarker(body, marker),
          }),
        (octokit, marker) => issueCommentsHave(octokit, pr, marker),
      ),

    editComment: async (pr, commentId, body) => {
      const id = numericId(commentId, "issue");
      if (id === undefined)
        throw new OttoError(
          "pr_comment_not_found",
          `'${commentId}' is not a GitHub conversation comment id.`,
          "Use an id from getComments (issue-N).",
        );
      // https://docs.github.com/en/rest/issues/comments#update-an-issue-comment (a PUT-like write: sending it twice changes nothing)
      await call(`comment ${commentId} on ${pr.repo}#${pr.number}`, (octokit) =>
        octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { ...repoParams(pr), comment_id: id, body }),
      );
    },

    postInlineComment: (pr, comment) =>
      post(
        `a new review comment on ${pr.repo}#${pr.number}`,
        (octokit, marker) =>
          octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments", {
            ...repoParams(pr),
            pull_number: pr.number,
            commit_id: pr.headSha,
            path: comment.path,
            line: comment.line,
            side: comment.side,
            body: withPostMarker(comment.body, marker),
          }),
        (octokit, marker) => reviewCommentsHave(octokit, pr, marker),
      ),

    postReview: (pr, review) =>
      post(
        `a review of ${pr.repo}#${pr.number}`,
        // One review, so the author gets one notification; COMMENT neither approves nor blocks.
        // https://docs.github.com/en/rest/pulls/reviews#create-a-review-for-a-pull-request
        (octokit, marker) =>
          octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews", {
            ...repoParams(pr),
            pull_number: pr.number,
            commit_id: pr.headSha,
            event: "COMMENT",
            body: withPostMarker(review.body, marker),
            comments: review.comments.map((c) => ({ path: c.path, line: c.line, side: c.side, body: c.body })),
          }),
        // The review is created with its comments in one request: its body's marker stands for all.
        async (octokit, marker) =>
          hasMarker(
            await getAllPages(octokit, "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews", {
              ...repoParams(pr),
              pull_number: pr.number,
            }),
            marker,
          ),
      ),

    replyToComment: async (pr, commentId, body) => {
      const what = `a reply to ${commentId} on ${pr.repo}#${pr.number}`;
      const review = numericId(commentId, "review");
      if (review !== undefined) {
        return post(
          what,
          (octokit, marker) =>
            octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", {
              ...repoParams(pr),
              pull_number: pr.number,
              comment_id: review,
              body: withPostMarker(body, marker),
            }),
          (octokit, marker) => reviewCommentsHave(octokit, pr, marker),
        );
      }
      const issue = numericId(commentId, "issue");
      if (issue === undefined)
        throw new OttoError(
          "pr_comment_not_found",
          `'${commentId}' is not a GitHub comment id.`,
          "Use an id from getComments (issue-N or review-N).",
        );
      // Conversation comments have no threads: answer with a new comment that quotes the author.
      const original = await call(`comment ${commentId} on ${pr.repo}#${pr.number}`, (octokit) =>
        octokit.request("GET /repos/{owner}/{repo}/issues/comments/{comment_id}", { ...repoParams(pr), comment_id: issue }),
      );
      const quote = `> @${original.data.user?.login ?? "ghost"} wrote:\n> ${(original.data.body ?? "").split("\n").slice(0, 3).join("\n> ")}`;
      return post(
        what,
        (octokit, marker) =>
          octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
            ...repoParams(pr),
            issue_number: pr.number,
            body: withPostMarker(`${quote}\n\n${body}`, marker),
          }),
        (octokit, marker) => issueCommentsHave(octokit, pr, marker),
      );
    },

    resolveComment: (pr, commentId, resolution) =>
      call(`the thread of ${commentId} on ${pr.repo}#${pr.number}`, async (octokit) => {
        const review = numericId(commentId, "review");
        // GitHub resolves threads without a reason; the reply carries it. Conversation comments have no state.
        if (review !== undefined) await resolveThreadOf(octokit, pr.repo, pr.number, review, resolution !== "active");
      }),

    openIssue: (repo, issue) =>
      call(`a new issue in ${repo}`, async (octokit) => {
        // https://docs.github.com/en/rest/issues/issues#create-an-issue (fine-grained tokens: issues write)
        const { data } = await octokit.request("POST /repos/{owner}/{repo}/issues", {
          ...repoParams({ repo }),
          title: issue.title,
          body: issue.body,
        });
        return { url: data.html_url };
      }),

    runWorkflow: (pr, action) => call(`${action} on ${pr.repo}#${pr.number}`, (octokit) => runGithubWorkflow(octokit, backend, pr, action)),
  };
  return backend;
}
