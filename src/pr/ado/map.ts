import type { Check, CheckState, CommentResolution, PrComment, PrInfo, PrLocator, PrReview } from "../types.ts";

/*
 * Pure mapping from Azure DevOps REST 7.1 payloads to otto's model. Input types name only the
 * fields read here. https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests/get-pull-request-by-id
 */

export interface AdoPullPayload {
  pullRequestId: number;
  status: string;
  title: string;
  description?: string;
  isDraft?: boolean;
  creationDate: string;
  closedDate?: string;
  sourceRefName: string;
  targetRefName: string;
  createdBy?: { id?: string; displayName?: string; uniqueName?: string };
  autoCompleteSetBy?: { id: string } | null;
  lastMergeSourceCommit?: { commitId: string };
  repository: { id: string; name: string; webUrl?: string; project: { id: string; name: string } };
  /** Set when the source branch is in a fork of the repository. */
  forkSource?: { repository?: { name?: string } };
}

const branch = (ref: string): string => ref.replace(/^refs\/heads\//, "");

export function mapAdoPull(locator: PrLocator, pull: AdoPullPayload, webBase: string): PrInfo {
  const [org = ""] = locator.repo.split("/");
  const project = pull.repository.project.name;
  const web =
    pull.repository.webUrl ??
    `${webBase}/${encodeURIComponent(org)}/${encodeURIComponent(project)}/_git/${encodeURIComponent(pull.repository.name)}`;
  return {
    provider: "ado",
    number: pull.pullRequestId,
    repo: `${org}/${project}/${pull.repository.name}`,
    url: `${web}/pullrequest/${pull.pullRequestId}`,
    title: pull.title,
    description: pull.description ?? "",
    state: pull.status === "completed" ? "merged" : pull.status === "abandoned" ? "abandoned" : "open",
    draft: pull.isDraft === true,
    sourceBranch: branch(pull.sourceRefName),
    targetBranch: branch(pull.targetRefName),
    headSha: pull.lastMergeSourceCommit?.commitId ?? "",
    author: pull.createdBy?.displayName ?? pull.createdBy?.uniqueName ?? "unknown",
    createdAt: pull.creationDate,
    meta: {
      repositoryId: pull.repository.id,
      projectId: pull.repository.project.id,
      ...(pull.autoCompleteSetBy?.id ? { autoCompleteSetBy: pull.autoCompleteSetBy.id } : {}),
    },
    fork: pull.forkSource !== undefined,
    ...(pull.forkSource?.repository?.name ? { headRepo: pull.forkSource.repository.name } : {}),
    ...(pull.createdBy?.id ? { authorId: pull.createdBy.id } : {}),
    ...(pull.createdBy?.uniqueName ? { authorLogin: pull.createdBy.uniqueName } : {}),
    updatedAt: pull.closedDate ?? pull.creationDate,
  };
}

/** Policy types that are CI: Build and Status (external checks). */
// https://learn.microsoft.com/en-us/rest/api/azure/devops/policy/types/list
export const BUILD_POLICY = "0609b952-1397-4640-95ec-e00a01b2c241";
export const STATUS_POLICY = "cbdc66da-9728-4af8-aada-9a5a32e4a226";

export interface PolicyEvaluationPayload {
  status: string;
  configuration: {
    isEnabled?: boolean;
    type: { id: string; displayName?: string };
    settings?: { displayName?: string | null; statusName?: string };
  };
  /** Azure DevOps calls `context` internal data; of it only the build id is read (https://learn.microsoft.com/rest/api/azure/devops/policy/evaluations/list#policyevaluationrecord). */
  context?: { buildId?: number } | null;
}

// https://learn.microsoft.com/en-us/rest/api/azure/devops/policy/evaluations/list#policyevaluationstatus
function policyState(status: string): CheckState {
  if (status === "approved") return "success";
  if (status === "notApplicable") return "skipped";
  return status === "rejected" || status === "broken" ? "failure" : "pending";
}

/**
 * CI checks from policy evaluations; [] when the branch has no build or status policy. A build
 * policy without a display name is named from its build's definition (`definitions`, by build
 * id, read with the documented build API), never from `context`'s undocumented fields.
 */
export function policyChecks(
  evaluations: readonly PolicyEvaluationPayload[],
  definitions: ReadonlyMap<number, string> = new Map(),
): Check[] {
  return evaluations
    .filter((e) => e.configuration.isEnabled !== false && [BUILD_POLICY, STATUS_POLICY].includes(e.configuration.type.id))
    .map((e): Check => {
      const name =
        e.configuration.settings?.displayName ||
        (e.context?.buildId ? definitions.get(e.context.buildId) : undefined) ||
        e.configuration.settings?.statusName ||
        e.configuration.type.displayName ||
        "policy";
      const state = policyState(e.status);
      const buildId = e.context?.buildId;
      return {
        name,
        state,
        ...(state === "failure" ? { detail: `policy ${e.status}` } : {}),
        ...(buildId ? { logId: String(buildId) } : {}),
      };
    });
}

export interface BuildPayload {
  id: number;
  status: string;
  result?: string;
  definition: { id: number; name: string };
  _links?: { web?: { href: string } };
}

// https://learn.microsoft.com/en-us/rest/api/azure/devops/build/builds/list#buildresult
function buildState(build: BuildPayload): CheckState {
  if (build.status !== "completed") return "pending";
  if (build.result === "succeeded" || build.result === "partiallySucceeded") return "success";
  return build.result === "none" ? "skipped" : "failure";
}

/** CI checks from the PR's merge builds: the newest build of each definition. */
export function buildChecks(builds: readonly BuildPayload[]): Check[] {
  const latest = new Map<number, BuildPayload>();
  for (const build of builds) {
    const seen = latest.get(build.definition.id);
    // Build ids grow with queue time.
    if (!seen || build.id > seen.id) latest.set(build.definition.id, build);
  }
  return [...latest.values()].map((b): Check => {
    const state = buildState(b);
    const url = b._links?.web?.href;
    return {
      name: b.definition.name,
      state,
      ...(state === "failure" ? { detail: `build ${b.result ?? "failed"}` } : {}),
      ...(url ? { url } : {}),
      logId: String(b.id),
    };
  });
}

export interface ThreadPayload {
  id: number;
  status?: string;
  isDeleted?: boolean;
  threadContext?: { filePath?: string; rightFileStart?: { line: number }; leftFileStart?: { line: number } } | null;
  comments: Array<{
    id: number;
    parentCommentId?: number;
    content?: string;
    commentType?: string;
    isDeleted?: boolean;
    publishedDate: string;
    author: { id?: string; displayName?: string; uniqueName?: string };
  }>;
}

/** How a closed thread was closed, in otto's words. https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-request-threads/list#commentthreadstatus */
const RESOLUTIONS: Record<string, CommentResolution> = { fixed: "resolved", wontFix: "wont_fix", byDesign: "by_design", closed: "closed" };

/** Thread states that count as handled. https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-request-threads/list#commentthreadstatus */
const OPEN_STATES = new Set(["active", "pending", "unknown"]);

/** Text comments of every live thread; ids are `<thread>/<comment>`. */
export function mapThreads(threads: readonly ThreadPayload[]): PrComment[] {
  const out: PrComment[] = [];
  for (const thread of threads) {
    if (thread.isDeleted) continue;
    const path = thread.threadContext?.filePath?.replace(/^\//, "");
    const line = thread.threadContext?.rightFileStart?.line ?? thread.threadContext?.leftFileStart?.line;
    for (const c of thread.comments) {
      if (c.isDeleted || c.commentType === "system") continue;
      out.push({
        id: `${thread.id}/${c.id}`,
        kind: path ? "inline" : "conversation",
        author: c.author.displayName ?? c.author.uniqueName ?? "unknown",
        body: c.content ?? "",
        createdAt: c.publishedDate,
        ...(path ? { path } : {}),
        ...(path && line ? { line } : {}),
        resolved: !OPEN_STATES.has(thread.status ?? "unknown"),
        ...(RESOLUTIONS[thread.status ?? ""] ? { resolution: RESOLUTIONS[thread.status ?? ""] } : {}),
        ...(c.parentCommentId ? { inReplyTo: `${thread.id}/${c.parentCommentId}` } : {}),
        ...(c.author.id ? { authorId: c.author.id } : {}),
        ...(c.author.uniqueName ? { authorLogin: c.author.uniqueName } : {}),
      });
    }
  }
  return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** A team of the project. https://learn.microsoft.com/en-us/rest/api/azure/devops/core/teams/get-teams */
export interface TeamPayload {
  id: string;
  name: string;
}

/** https://learn.microsoft.com/en-us/rest/api/azure/devops/core/teams/get-team-members-with-extended-properties */
export interface TeamMemberPayload {
  identity: { id: string; displayName?: string; uniqueName?: string; isContainer?: boolean };
  isTeamAdmin?: boolean;
}

/**
 * The project's members as otto recognises them in comments: identity ids and unique names,
 * lower case. A group inside a team is not expanded; its members are not in the set.
 */
export function memberNames(members: readonly TeamMemberPayload[]): Set<string> {
  const names = new Set<string>();
  for (const { identity } of members) {
    if (identity.isContainer === true) continue;
    names.add(identity.id.toLowerCase());
    if (identity.uniqueName) names.add(identity.uniqueName.toLowerCase());
  }
  return names;
}

export interface TimelineRecord {
  id: string;
  type: string;
  name: string;
  result?: string | null;
  log?: { id: number } | null;
  issues?: Array<{ type: string; message: string }> | null;
}

/** Failed tasks that have a log, in timeline order. */
export function failedTasks(records: readonly TimelineRecord[]): TimelineRecord[] {
  return records.filter((r) => r.type === "Task" && r.result === "failed" && r.log);
}

export interface AdoReviewerPayload {
  displayName?: string;
  uniqueName?: string;
  vote: number;
}

/**
 * Reviewer votes as reviews: 10 approved, 5 approved with suggestions, 0 no vote, -5 waiting for
 * the author, -10 rejected; both negative votes hold the PR back. Voters are project members.
 * https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-request-reviewers/list#identityrefwithvote
 */
export function mapAdoReviewers(reviewers: readonly AdoReviewerPayload[]): PrReview[] {
  return reviewers
    .filter((r) => r.vote !== 0)
    .map((r) => ({
      author: r.uniqueName ?? r.displayName ?? "unknown",
      association: "MEMBER",
      state: r.vote < 0 ? "changes_requested" : "approved",
      note: `vote ${r.vote}${VOTES[r.vote] ? `: ${VOTES[r.vote]}` : ""}`,
    }));
}

const VOTES: Record<number, string> = { 10: "approved", 5: "approved with suggestions", [-5]: "waiting for author", [-10]: "rejected" };
