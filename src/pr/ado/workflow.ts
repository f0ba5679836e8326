import type { Config } from "../../config/index.ts";
import type { PrInfo, WorkflowAction, WorkflowResult } from "../types.ts";
import { OTTO_MARKER } from "../watch/plan.ts";
import type { AdoHttp } from "./http.ts";
import { adoParts } from "./locate.ts";

interface WorkflowInput {
  http: AdoHttp;
  settings: Config["pr"]["providers"]["ado"];
  pr: PrInfo;
  action: WorkflowAction;
}

/** Azure DevOps lifecycle steps. Auto-complete is set as the authenticated user. */
export async function runAdoWorkflow({ http, settings, pr, action }: WorkflowInput): Promise<WorkflowResult> {
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
    if (!text) return { done: false, message: "pr.providers.ado.work_item_comment is not set: otto does not know your organization's work item comment." };
    // The convention is a comment a bot or service hook acts on. Closed, so it never holds up completion.
    await http.json(`${prPath.replace("/pullrequests/", "/pullRequests/")}/threads`, {
      method: "POST",
      body: { comments: [{ parentCommentId: 0, content: `${text}\n\n${OTTO_MARKER}`, commentType: "text" }], status: "closed" },
    });
    return { done: true, message: `Posted the work item comment on PR ${pr.number}.` };
  }
  if (action === "rerun_failed") return { done: false, message: "Azure DevOps re-runs builds by policy (re-queue from the PR page); nothing done." };
  // MerlinBot's threads are answered by the comment flow (pr.providers.ado.merlinbot).
  return { done: false, message: "Bot comments are answered by the comment flow; nothing to do here." };
}
