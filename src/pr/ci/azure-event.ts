import { OttoError } from "../../core/index.ts";
import { AZURE_EVENTS, AZURE_VARS } from "./variables.ts";
import { nothing, type CiEvent } from "./event.ts";

/*
 * Azure Pipelines: the predefined variables of a PR validation build (the otto job runs after the
 * build job with `condition: failed()`, OTTO_CI_EVENT=build_failed), or a service hook's payload
 * ("Pull request commented on", ms.vss-code.git-pullrequest-comment-event) handed to a pipeline
 * through an incoming-webhook resource (OTTO_CI_EVENT=comment, OTTO_EVENT_PAYLOAD). Pure.
 *
 * The payload is nobody's word: the incoming webhook's URL takes a POST from anyone who knows its
 * name, with no signature. Otto takes from it only where to look (the PR, the thread and comment
 * ids), and only when it names this pipeline's own repository and project (the predefined
 * variables, which Azure sets); who wrote what is read back from the API (run-ci.ts).
 */

type Env = Readonly<Record<string, string | undefined>>;

/** Where the job's organization lives: base URL and organization name from System.CollectionUri. */
export interface AzureCollection {
  baseUrl: string;
  organization: string;
}

/** `https://dev.azure.com/contoso/` → base https://dev.azure.com, organization contoso (Azure DevOps Server: its collection). */
export function azureCollection(uri: string | undefined): AzureCollection | undefined {
  if (!uri) return undefined;
  try {
    const url = new URL(uri);
    const parts = url.pathname.split("/").filter(Boolean);
    const organization = parts.pop();
    if (!organization) return undefined;
    return { baseUrl: `${url.origin}${parts.length > 0 ? `/${parts.join("/")}` : ""}`, organization: decodeURIComponent(organization) };
  } catch {
    return undefined;
  }
}

interface CommentPayload {
  eventType?: string;
  resource?: {
    comment?: {
      // Its content, author and date are left out on purpose: read back from the API.
      id?: number;
      commentType?: string;
      _links?: { threads?: { href?: string } };
    };
    pullRequest?: {
      pullRequestId?: number;
      status?: string;
      repository?: { id?: string; name?: string; project?: { id?: string; name?: string } };
      forkSource?: unknown;
    };
  };
}

export function readAzureEvent(env: Env): CiEvent {
  const event = env[AZURE_VARS.event];
  if (!event || !(AZURE_EVENTS as readonly string[]).includes(event)) {
    throw new OttoError(
      "ci_event",
      `${AZURE_VARS.event} is ${event ? `'${event}'` : "not set"}; on Azure Pipelines it must be ${AZURE_EVENTS.join(" or ")}.`,
      "Set it in the otto job's env (the YAML /otto-pr ci init writes does).",
    );
  }
  const collection = azureCollection(env[AZURE_VARS.collectionUri]);
  const project = env[AZURE_VARS.teamProject];
  if (!collection || !project)
    throw new OttoError(
      "ci_event",
      `${AZURE_VARS.collectionUri} and ${AZURE_VARS.teamProject} must be set (Azure Pipelines sets both).`,
      "Run /otto-pr ci inside an Azure Pipelines job.",
    );
  return event === "build_failed" ? buildFailed(env, collection, project) : commented(env, collection, project);
}

function buildFailed(env: Env, collection: AzureCollection, project: string): CiEvent {
  const source = "build_failed";
  if (env[AZURE_VARS.buildReason] !== "PullRequest")
    return nothing(`${source}: the build's reason is ${env[AZURE_VARS.buildReason] ?? "unknown"}, not PullRequest`);
  const id = Number(env[AZURE_VARS.pullRequestId]);
  if (!Number.isInteger(id) || id <= 0) return nothing(`${source}: ${AZURE_VARS.pullRequestId} names no pull request`);
  if ((env[AZURE_VARS.isFork] ?? "").toLowerCase() === "true")
    return nothing(`${source}: PR ${id} is from a fork; otto does not work on fork PRs`);
  const repo = env[AZURE_VARS.repositoryName];
  if (!repo) return nothing(`${source}: ${AZURE_VARS.repositoryName} is not set`);
  const headSha = env[AZURE_VARS.sourceCommitId];
  return {
    kind: "failure",
    provider: "ado",
    repo: `${collection.organization}/${project}/${repo}`,
    number: id,
    ...(headSha ? { headSha } : {}),
    source: `${source} (build ${env[AZURE_VARS.buildId] ?? "?"})`,
  };
}

function commented(env: Env, collection: AzureCollection, project: string): CiEvent {
  const source = "comment";
  let payload: CommentPayload | null;
  try {
    payload = JSON.parse(env[AZURE_VARS.payload] ?? "") as CommentPayload | null;
  } catch {
    throw new OttoError(
      "ci_event",
      `${AZURE_VARS.payload} is not the service hook's JSON payload.`,
      "Pass the incoming webhook's payload to the job, e.g. env OTTO_EVENT_PAYLOAD: ${{ convertToJson(parameters.otto_hook) }}.",
    );
  }
  const c = payload?.resource?.comment;
  const pr = payload?.resource?.pullRequest;
  if (!c?.id || !pr?.pullRequestId)
    return nothing(`${source}: the payload has no pull request comment (${payload?.eventType ?? "no event type"})`);
  const mismatch = notOurs(env, project, pr.repository);
  if (mismatch) return nothing(`${source}: ${mismatch}`);
  const repo = env[AZURE_VARS.repositoryName];
  if (!repo) return nothing(`${source}: ${AZURE_VARS.repositoryName} is not set`);
  if (c.commentType === "system") return nothing(`${source}: a system comment`);
  if (pr.forkSource) return nothing(`${source}: PR ${pr.pullRequestId} is from a fork; otto does not work on fork PRs`);
  const thread = /\/threads\/(\d+)(?:$|[/?#])/.exec(c._links?.threads?.href ?? "")?.[1];
  if (!thread || !Number.isInteger(c.id) || !Number.isInteger(pr.pullRequestId))
    return nothing(`${source}: the payload names no thread and comment otto could read back`);
  return {
    kind: "comment_ref",
    provider: "ado",
    repo: `${collection.organization}/${project}/${repo}`,
    number: pr.pullRequestId,
    commentId: `${thread}/${c.id}`,
    source,
  };
}

const same = (a: string | undefined, b: string | undefined): boolean => !!a && !!b && a.trim().toLowerCase() === b.trim().toLowerCase();

/** Why the payload's repository is not this pipeline's own (by id) in this project, or undefined when it is. */
function notOurs(
  env: Env,
  project: string,
  repository: { id?: string; name?: string; project?: { id?: string; name?: string } } | undefined,
): string | undefined {
  const ownId = env[AZURE_VARS.repositoryId];
  if (!ownId) return `${AZURE_VARS.repositoryId} is not set, so otto cannot tell whether the payload is about this repository`;
  if (!same(repository?.id, ownId))
    return `the payload names repository ${repository?.name ?? repository?.id ?? "none"}, not this pipeline's (${env[AZURE_VARS.repositoryName] ?? ownId})`;
  const ownProjectId = env[AZURE_VARS.teamProjectId];
  const theirs = repository?.project;
  const sameProject = ownProjectId && theirs?.id ? same(theirs.id, ownProjectId) : same(theirs?.name, project);
  if (!sameProject) return `the payload names project ${theirs?.name ?? theirs?.id ?? "none"}, not this pipeline's (${project})`;
  return undefined;
}
