import type { Config } from "../../config/index.ts";
import type { PrInfo, WorkflowAction, WorkflowResult } from "../types.ts";
import { OTTO_MARKER } from "../store/markers.ts";
import { isOttoError } from "../../core/index.ts";
import type { AdoHttp } from "./http.ts";
import { adoParts } from "./locate.ts";
import { BUILD_POLICY, buildChecks, policyChecks, STATUS_POLICY, type BuildPayload, type PolicyEvaluationPayload } from "./map.ts";

// The policy evaluations API exists only as a preview. https://learn.microsoft.com/en-us/rest/api/azure/devops/policy/evaluations
const POLICY_API = "7.1-preview.1";

interface WorkflowInput {
  http: AdoHttp;
  settings: Config["pr"]["providers"]["ado"];
  pr: PrInfo;
  action: WorkflowAction;
  /** A closed thread through the posting path (src/pr/post-once.ts). */
  postThread: (content: string) => Promise<void>;
}

/** Azure DevOps lifecycle steps. Auto-complete is set as the authenticated user. */
export async function runAdoWorkflow({ http, settings, pr, action, postThread }: WorkflowInput): Promise<WorkflowResult> {
  const { project } = adoParts(pr);
  const prPath = `${encodeURIComponent(project)}/_apis/git/repositories/${pr.meta.repositoryId ?? ""}/pullrequests/${pr.number}`;
  if (action === "auto_complete") {
    if (!settings.auto_complete) return { done: false, message: "pr.providers.ado.auto_complete is false; auto-complete not set." };
    // Someone (otto at `add`, or a person) set it already: setting it again would change who set it.
    if (pr.meta.autoCompleteSetBy) return { done: true, message: `Auto-complete is already set on PR ${pr.number}.` };
    // https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests/update (autoCompleteSetBy)
    const me = await http.json<{ authenticatedUser: { id: string } }>("_apis/connectionData", { apiVersion: "7.1-preview" });
    await http.json(prPath, { method: "PATCH", body: { autoCompleteSetBy: { id: me.authenticatedUser.id } } });
    return { done: true, message: `Auto-complete set on PR ${pr.number}.` };
  }
  if (action === "create_work_item") {
    if (!settings.create_work_item) return { done: false, message: "pr.providers.ado.create_work_item is false; no work item requested." };
    const text = settings.work_item_comment?.trim();
    if (!text)
      return {
        done: false,
        message: "pr.providers.ado.work_item_comment is not set: otto does not know your organization's work item comment.",
      };
    // The convention is a comment a bot or service hook acts on. Closed, so it never holds up completion.
    await postThread(`${text}\n\n${OTTO_MARKER}`);
    return { done: true, message: `Posted the work item comment on PR ${pr.number}.` };
  }
  if (action === "rerun_failed") return rerunFailed(http, pr);
  // MerlinBot's threads are answered by the comment flow (pr.providers.ado.merlinbot).
  return { done: false, message: "Bot comments are answered by the comment flow; nothing to do here." };
}

type Evaluation = PolicyEvaluationPayload & { evaluationId: string };

/** Policy states that block the PR. https://learn.microsoft.com/en-us/rest/api/azure/devops/policy/evaluations/list#policyevaluationstatus */
const FAILED_POLICY = new Set(["rejected", "broken"]);

/**
 * Re-runs the PR's failed CI, the way getPipelineStatus found it:
 * - Build policies gate the PR: a failed one is re-queued, like "Re-queue" on the PR page. The
 *   policy queues a fresh build of the current merge commit, which it then tracks; retrying the
 *   old build would not satisfy a policy that considers it expired or not current, and classic
 *   pipelines cannot retry at all. https://learn.microsoft.com/en-us/rest/api/azure/devops/policy/evaluations/requeue-policy-evaluation
 * - Without policies, the newest merge build of each pipeline is the check: a failed one gets
 *   "Rerun failed jobs" (only its failed jobs run again, in the same build).
 *   https://learn.microsoft.com/en-us/rest/api/azure/devops/build/builds/update-build (retry)
 * Status policies are posted by external services otto cannot re-run.
 */
async function rerunFailed(http: AdoHttp, pr: PrInfo): Promise<WorkflowResult> {
  const project = encodeURIComponent(adoParts(pr).project);
  const artifactId = `vstfs:///CodeReview/CodeReviewId/${pr.meta.projectId ?? ""}/${pr.number}`;
  const evaluations = await http.json<{ value: Evaluation[] }>(`${project}/_apis/policy/evaluations`, {
    query: { artifactId },
    apiVersion: POLICY_API,
  });
  const done: string[] = [];
  const failed: string[] = [];
  const attempt = async (what: string, request: () => Promise<unknown>) => {
    try {
      await request();
      done.push(what);
    } catch (error) {
      // Bad credentials fail every call: the caller's error handling says what to do.
      if (isOttoError(error) && (error.code === "pr_auth" || error.code === "pr_no_token")) throw error;
      failed.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  if (policyChecks(evaluations.value).length > 0) {
    const failing = evaluations.value.filter((e) => e.configuration.isEnabled !== false && FAILED_POLICY.has(e.status));
    for (const e of failing.filter((x) => x.configuration.type.id === BUILD_POLICY)) {
      const name = policyChecks([e])[0]?.name ?? "build policy";
      await attempt(`re-queued the build policy '${name}'`, () =>
        http.json(`${project}/_apis/policy/evaluations/${encodeURIComponent(e.evaluationId)}`, {
          method: "PATCH",
          body: {},
          apiVersion: POLICY_API,
          idempotent: false,
        }),
      );
    }
    const external = failing.filter((x) => x.configuration.type.id === STATUS_POLICY).map((x) => policyChecks([x])[0]?.name ?? "status");
    if (external.length > 0) failed.push(`${external.join(", ")}: status checks posted by an external service; otto cannot re-run them`);
  } else {
    const builds = await http.json<{ value: BuildPayload[] }>(`${project}/_apis/build/builds`, {
      query: { branchName: `refs/pull/${pr.number}/merge`, queryOrder: "queueTimeDescending", $top: 50 },
    });
    for (const check of buildChecks(builds.value).filter((c) => c.state === "failure")) {
      await attempt(`retried the failed jobs of build ${check.logId ?? "?"} (${check.name})`, () =>
        http.json(`${project}/_apis/build/builds/${check.logId ?? ""}`, {
          method: "PATCH",
          query: { retry: "true" },
          body: {},
          idempotent: false,
        }),
      );
    }
  }

  const also = failed.length > 0 ? ` Not re-run: ${failed.join("; ")}.` : "";
  if (done.length === 0)
    return {
      done: false,
      message: failed.length > 0 ? `nothing could be re-run on PR ${pr.number}.${also}` : `PR ${pr.number} has no failed build to re-run.`,
    };
  return { done: true, message: `Azure DevOps ${done.join(", ")}.${also}` };
}
