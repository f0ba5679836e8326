import { OttoError, redact } from "../../core/index.ts";
import { parseDuration } from "../../config/index.ts";
import type { BackendDeps, PrBackend, PrSkim } from "../backend.ts";
import { authorKey, type AuthorAccess, type PrInfo, type PrLocator } from "../types.ts";
import { adoAuthorization } from "./auth.ts";
import { lazy } from "../token.ts";
import { createAdoHttp, type AdoHttp } from "./http.ts";
import { adoParts, locateAdoId, matchesAdoHost, parseAdoUrl } from "./locate.ts";
import {
  failedTasks,
  mapAdoPull,
  mapAdoReviewers,
  mapThreads,
  memberNames,
  type AdoPullPayload,
  type AdoReviewerPayload,
  type TeamMemberPayload,
  type TeamPayload,
  type ThreadPayload,
  type TimelineRecord,
} from "./map.ts";
import { runAdoWorkflow } from "./workflow.ts";
import { adoBaseCheck } from "./base-check.ts";
import { adoPipelineStatus } from "./pipeline-status.ts";
import { isUncertainWrite, postOnce, withPostMarker } from "../post-once.ts";
import { cutNote } from "../read-capped.ts";
import { normalizeRemoteUrl } from "../../workspace/index.ts";

/*
 * One file for one job: the Azure DevOps implementation of the PR backend interface
 * (src/pr/backend.ts), over one authenticated fetch with its retries and bounds. The pure parts
 * (status mapping, identities, work-item text) live beside it.
 */

/** Teams and members read per request; the APIs default to 100. */
const PAGE = 1000;

/** Per failed task; the end of a log holds the failure. */
const MAX_TASK_LOG_BYTES = 60_000;

interface List<T> {
  value: T[];
}

const seg = encodeURIComponent;

/** What the PR list shows of a change: the source branch's commit, state, draft, title, auto-complete. Threads are not in it. */
const adoPullVersion = (pull: AdoPullPayload): string =>
  JSON.stringify([
    pull.lastMergeSourceCommit?.commitId ?? "",
    pull.status,
    pull.isDraft === true,
    pull.title,
    pull.autoCompleteSetBy?.id ?? "",
  ]);
// https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-request-threads/update#commentthreadstatus
const STATUS = { resolved: "fixed", wont_fix: "wontFix", by_design: "byDesign", closed: "closed", active: "active" } as const;

/** The Azure DevOps backend: REST api-version 7.1 over fetch. */
export function createAdoBackend(deps: BackendDeps): PrBackend {
  const settings = deps.config.pr.providers.ado;
  const base = settings.base_url.replace(/\/+$/, "");
  const clients = new Map<string, AdoHttp>();
  // Looked up once for the backend's life (one watcher cycle or one command), not per request.
  const authorization = lazy(() => adoAuthorization(deps));
  const users = new Map<string, Promise<string>>();
  // Members of each project, kept for the backend's life: one watcher cycle or one command.
  const members = new Map<string, Promise<Set<string>>>();
  const membersOf = (pr: PrInfo): Promise<Set<string>> => {
    const { org, project } = adoParts(pr);
    const projectId = pr.meta.projectId ?? project;
    const key = `${org}/${projectId}`.toLowerCase();
    let names = members.get(key);
    if (!names) {
      names = (async () => {
        // The project's members are the members of its teams (every project has a default team);
        // needs the token scope "Project and Team (read)".
        const base = `_apis/projects/${seg(projectId)}/teams`;
        // api-version: https://learn.microsoft.com/en-us/rest/api/azure/devops/core/teams/get-teams?view=azure-devops-rest-7.1
        const teams = await http(org).json<List<TeamPayload>>(base, { query: { $top: PAGE }, apiVersion: "7.1-preview.3" });
        const all: TeamMemberPayload[] = [];
        for (const team of teams.value)
          all.push(
            ...(
              await http(org).json<List<TeamMemberPayload>>(`${base}/${seg(team.id)}/members`, {
                query: { $top: PAGE },
                apiVersion: "7.1-preview.2",
              })
            ).value,
          );
        return memberNames(all);
      })();
      names.catch(() => members.delete(key));
      members.set(key, names);
    }
    return names;
  };
  const http = (org: string): AdoHttp => {
    let client = clients.get(org);
    if (!client) {
      client = createAdoHttp({
        orgUrl: `${base}/${seg(org)}`,
        authorization,
        fetch: deps.fetch,
        sleep: deps.sleep,
        timeoutMs: parseDuration(deps.config.pr.request_timeout),
        retryBaseMs: deps.retryBaseMs,
      });
      clients.set(org, client);
    }
    return client;
  };
  const threadsPath = (pr: PrInfo): string => {
    const { project } = adoParts(pr);
    return `${seg(project)}/_apis/git/repositories/${pr.meta.repositoryId ?? ""}/pullRequests/${pr.number}/threads`;
  };

  /** Whether any comment of the PR's threads carries `marker` (deleted ones too: they were posted). */
  const threadsHave = async (pr: PrInfo, marker: string): Promise<boolean> => {
    const threads = await http(adoParts(pr).org).json<List<ThreadPayload>>(threadsPath(pr));
    return threads.value.some((t) => t.comments.some((c) => (c.content ?? "").includes(marker)));
  };
  /** Every thread or comment otto creates goes through postOnce: POSTs are not retried by the client. */
  const post = (pr: PrInfo, write: (marker: string) => Promise<unknown>): Promise<void> =>
    postOnce({
      write: async (marker) => {
        await write(marker);
      },
      find: (marker) => threadsHave(pr, marker),
      sleep: deps.sleep,
      settleMs: deps.retryBaseMs,
      log: (message) => deps.log(`${pr.url}: ${message}`),
    }).then(() => undefined);
  const postThread = (pr: PrInfo, content: string, status: "active" | "closed", threadContext?: object): Promise<void> =>
    post(pr, (marker) =>
      http(adoParts(pr).org).json(threadsPath(pr), {
        method: "POST",
        body: {
          comments: [{ parentCommentId: 0, content: withPostMarker(content, marker), commentType: "text" }],
          status,
          ...(threadContext ? { threadContext } : {}),
        },
      }),
    );

  const backend: PrBackend = {
    name: "ado",
    matchesUrl: (url) => matchesAdoHost(url, settings),
    parseUrl: (url) => parseAdoUrl(url, settings),
    locateId: (id, context) => locateAdoId(id, context, settings),

    repoOfRemote: (remoteUrl) => {
      const [host = "", ...segments] = normalizeRemoteUrl(remoteUrl)?.split("/") ?? [];
      // Azure DevOps Server: the remote's path starts with base_url's (a virtual directory such as /tfs).
      const server = new URL(settings.base_url);
      const prefix = server.pathname
        .split("/")
        .filter(Boolean)
        .map((p) => p.toLowerCase());
      const rest =
        host === "dev.azure.com"
          ? segments
          : // normalizeRemoteUrl drops the port, so the server is compared by its host name.
            host === server.hostname.toLowerCase() && prefix.every((p, i) => segments[i] === p)
            ? segments.slice(prefix.length)
            : [];
      return rest.length === 3 ? rest.join("/") : undefined;
    },

    async findOpenPr(repo, branch) {
      const { org, project, repo: name = "" } = adoParts({ repo });
      // https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests/get-pull-requests (searchCriteria)
      const found = await http(org).json<List<AdoPullPayload>>(`${seg(project)}/_apis/git/repositories/${seg(name)}/pullrequests`, {
        query: { "searchCriteria.sourceRefName": `refs/heads/${branch}`, "searchCriteria.status": "active", $top: 1 },
      });
      const first = found.value[0];
      return first ? { provider: "ado" as const, repo, number: first.pullRequestId } : undefined;
    },

    async createPr(pr) {
      const { org, project, repo: name = "" } = adoParts(pr);
      // https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests/create (reviewers by identity id)
      const body = {
        sourceRefName: `refs/heads/${pr.source}`,
        targetRefName: `refs/heads/${pr.target}`,
        title: pr.title,
        description: pr.body,
        isDraft: pr.draft,
        reviewers: pr.reviewers.map((id) => ({ id })),
      };
      try {
        const created = await http(org).json<AdoPullPayload>(`${seg(project)}/_apis/git/repositories/${seg(name)}/pullrequests`, {
          method: "POST",
          body,
        });
        return {
          pr: { provider: "ado", repo: pr.repo, number: created.pullRequestId },
          notes: pr.reviewers.length ? [`Reviewers added: ${pr.reviewers.join(", ")}.`] : [],
        };
      } catch (error) {
        // A rejection the server answered created nothing; an unknown outcome is looked up before anyone sends it again.
        if (!isUncertainWrite(error)) throw error;
        await deps.sleep(deps.retryBaseMs);
        const found = await backend.findOpenPr(pr.repo, pr.source).catch(() => undefined);
        if (!found) throw error;
        return {
          pr: found,
          notes: pr.reviewers.length ? ["The PR was found after an uncertain answer; check its reviewers on the PR page."] : [],
        };
      }
    },

    async getPr(pr: PrLocator, options = {}) {
      const { org, project } = adoParts(pr);
      const pull = await http(org).json<AdoPullPayload>(`${seg(project)}/_apis/git/pullrequests/${pr.number}`, { signal: options.signal });
      return mapAdoPull(pr, pull, base);
    },

    async skimRepo(repo, _tracked, options = {}) {
      const { org, project, repo: name } = adoParts({ repo });
      // Known only once a PR was read (`org/project` before): such PRs are read one by one.
      if (!name) return { prs: new Map(), commentsInVersion: false };
      // https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests/get-pull-requests (active ones, newest first)
      const list = await http(org).json<List<AdoPullPayload>>(`${seg(project)}/_apis/git/repositories/${seg(name)}/pullrequests`, {
        query: { "searchCriteria.status": "active", $top: PAGE },
        signal: options.signal,
      });
      const prs = new Map<number, PrSkim>();
      for (const pull of list.value)
        prs.set(pull.pullRequestId, {
          pr: mapAdoPull({ provider: "ado", repo, number: pull.pullRequestId }, pull, base),
          version: adoPullVersion(pull),
        });
      return { prs, commentsInVersion: false };
    },

    async listRecentPrs(repo, since, max) {
      const { org, project, repo: name } = adoParts({ repo });
      if (!name) return [];
      // https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests/get-pull-requests (status all, newest first).
      // The list has no update time: an active PR may have changed at any time, a closed one counts by its closing date.
      const list = await http(org).json<List<AdoPullPayload>>(`${seg(project)}/_apis/git/repositories/${seg(name)}/pullrequests`, {
        query: { "searchCriteria.status": "all", $top: PAGE },
      });
      const from = since.toISOString();
      return list.value
        .filter((pull) => pull.status === "active" || (pull.closedDate ?? pull.creationDate) >= from)
        .slice(0, max)
        .map((pull) => mapAdoPull({ provider: "ado", repo, number: pull.pullRequestId }, pull, base));
    },

    getPipelineStatus: (pr, options = {}) => adoPipelineStatus(http(adoParts(pr).org), pr, options),

    baseCheck: (pr, name, options = {}) => adoBaseCheck(http(adoParts(pr).org), pr, name, options),

    async getBuildLogs(pr, logId, options = {}) {
      const { org, project } = adoParts(pr);
      const build = `${seg(project)}/_apis/build/builds/${seg(logId)}`;
      const timeline = await http(org).json<{ records: TimelineRecord[] } | undefined>(`${build}/timeline`, { signal: options.signal });
      const parts: string[] = [];
      for (const task of failedTasks(timeline?.records ?? [])) {
        // Streamed: only the last MAX_TASK_LOG_BYTES of a log of any size are held.
        const log = await http(org).tail(`${build}/logs/${task.log?.id ?? 0}`, MAX_TASK_LOG_BYTES, { signal: options.signal });
        const issues = (task.issues ?? []).filter((i) => i.type === "error").map((i) => `error: ${i.message}`);
        parts.push(`=== ${task.name} (failed) ===`, ...issues, ...(log.truncated ? [cutNote(MAX_TASK_LOG_BYTES)] : []), log.text);
      }
      return redact(parts.length > 0 ? parts.join("\n") : `Build ${logId} has no failed task with a log.`);
    },

    currentUser(pr) {
      // connectionData names the token's identity (what auto-complete uses too). Its id, never its
      // display name: anyone may take the same display name (authoredBy compares comments' author ids).
      // Asked once per organization: the watcher may need it every cycle.
      const org = adoParts(pr).org;
      let user = users.get(org);
      if (!user) {
        user = http(org)
          .json<{ authenticatedUser: { id?: string } }>("_apis/connectionData", { apiVersion: "7.1-preview" })
          .then((data) => {
            if (!data.authenticatedUser.id)
              throw new OttoError(
                "pr_auth",
                "Azure DevOps did not name the token's identity (connectionData has no authenticatedUser.id).",
                "Check the PAT (OTTO_ADO_PAT) and the organization URL.",
              );
            return data.authenticatedUser.id;
          });
        // A failed lookup is not remembered: the next call asks again.
        user.catch(() => users.delete(org));
        users.set(org, user);
      }
      return user;
    },

    async authorAccess(pr, authors) {
      const names = await membersOf(pr);
      const out = new Map<string, AuthorAccess>();
      for (const author of authors) {
        // Display names are not unique and anyone may pick one: only the identity id or the sign-in name counts.
        const known = [author.authorId, author.authorLogin].some((n) => n !== undefined && names.has(n.toLowerCase()));
        out.set(authorKey(author), known ? "write" : "none");
      }
      return out;
    },

    async getComments(pr, options = {}) {
      const threads = await http(adoParts(pr).org).json<List<ThreadPayload>>(threadsPath(pr), { signal: options.signal });
      // The PR page opened at the thread: what the web UI's own links to a comment look like.
      return mapThreads(threads.value).map((c) => ({ ...c, url: `${pr.url}?discussionId=${c.id.split("/")[0] ?? ""}` }));
    },

    async getReviews(pr, options = {}) {
      const { org, project } = adoParts(pr);
      const reviewers = await http(org).json<List<AdoReviewerPayload>>(
        `${seg(project)}/_apis/git/repositories/${pr.meta.repositoryId ?? ""}/pullRequests/${pr.number}/reviewers`,
        { signal: options.signal },
      );
      return mapAdoReviewers(reviewers.value);
    },

    async postComment(pr, body) {
      // Closed: an informational comment must not hold up completion under the comment-resolution policy.
      await postThread(pr, body, "closed");
    },

    async editComment(pr, commentId, body) {
      const [thread, comment] = threadRef(commentId);
      // https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-request-thread-comments/update
      await http(adoParts(pr).org).json(`${threadsPath(pr)}/${thread}/comments/${comment}`, { method: "PATCH", body: { content: body } });
    },

    async postInlineComment(pr, comment) {
      const position = { line: comment.line, offset: 1 };
      const side =
        comment.side === "LEFT" ? { leftFileStart: position, leftFileEnd: position } : { rightFileStart: position, rightFileEnd: position };
      await postThread(pr, comment.body, "active", { filePath: `/${comment.path.replace(/^\//, "")}`, ...side });
    },

    async postReview(pr, review) {
      // Azure DevOps has no review object: one thread per comment, then the body as its own thread.
      for (const comment of review.comments) await backend.postInlineComment(pr, comment);
      if (review.body.trim()) await backend.postComment(pr, review.body);
    },

    async replyToComment(pr, commentId, body) {
      const [thread, parent] = threadRef(commentId);
      await post(pr, (marker) =>
        http(adoParts(pr).org).json(`${threadsPath(pr)}/${thread}/comments`, {
          method: "POST",
          body: { content: withPostMarker(body, marker), parentCommentId: parent, commentType: "text" },
        }),
      );
    },

    async resolveComment(pr, commentId, resolution) {
      const [thread] = threadRef(commentId);
      await http(adoParts(pr).org).json(`${threadsPath(pr)}/${thread}`, { method: "PATCH", body: { status: STATUS[resolution] } });
    },

    async openIssue(repo, issue) {
      const { org, project } = adoParts({ repo });
      // https://learn.microsoft.com/en-us/rest/api/azure/devops/wit/work-items/create?view=azure-devops-rest-7.1
      // A Bug's text lives in Repro Steps (HTML) in the Agile, Scrum and CMMI processes.
      const created = await http(org).json<{ id: number; _links?: { html?: { href?: string } } }>(
        `${seg(project)}/_apis/wit/workitems/$Bug`,
        {
          method: "POST",
          contentType: "application/json-patch+json",
          body: [
            { op: "add", path: "/fields/System.Title", value: issue.title },
            { op: "add", path: "/fields/Microsoft.VSTS.TCM.ReproSteps", value: markdownAsHtml(issue.body) },
            { op: "add", path: "/fields/System.Tags", value: "otto; flaky" },
          ],
        },
      );
      return { url: created._links?.html?.href ?? `${base}/${seg(org)}/${seg(project)}/_workitems/edit/${created.id}` };
    },

    runWorkflow: (pr, action) =>
      runAdoWorkflow({ http: http(adoParts(pr).org), settings, pr, action, postThread: (content) => postThread(pr, content, "closed") }),
  };
  return backend;
}

/** A markdown body as the HTML a work item's text field holds: escaped, its lines kept. */
function markdownAsHtml(text: string): string {
  const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return `<div>${escaped.split("\n").join("<br>")}</div>`;
}

function threadRef(commentId: string): [number, number] {
  const match = /^(\d+)\/(\d+)$/.exec(commentId);
  if (!match)
    throw new OttoError(
      "pr_comment_not_found",
      `'${commentId}' is not an Azure DevOps comment id.`,
      "Use an id from getComments (<thread>/<comment>).",
    );
  return [Number(match[1]), Number(match[2])];
}
