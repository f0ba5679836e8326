import type { Config } from "../../config/index.ts";
import type { PrInfo, WorkflowAction, WorkflowResult } from "../types.ts";
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
  if (action === "auto_complete") {
    if (!settings.auto_complete) return { done: false, message: "pr.providers.ado.auto_complete is false; auto-complete not set." };
    // https://learn.microsoft.com/en-us/rest/api/azure/devops/git/pull-requests/update (autoCompleteSetBy)
    const me = await http.json<{ authenticatedUser: { id: string } }>("_apis/connectionData", { apiVersion: "7.1-preview" });
    const { project } = adoParts(pr);
    await http.json(`${encodeURIComponent(project)}/_apis/git/repositories/${pr.meta.repositoryId ?? ""}/pullrequests/${pr.number}`, {
      method: "PATCH",
      body: { autoCompleteSetBy: { id: me.authenticatedUser.id } },
    });
    return { done: true, message: `Auto-complete set on PR ${pr.number}.` };
  }
  if (action === "rerun_failed") return { done: false, message: "Azure DevOps re-runs builds by policy (re-queue from the PR page); nothing done." };
  // Work items and MerlinBot threads are handled by the fix and comment flows.
  return { done: false, message: `${action.replace(/_/g, " ")} is not handled by the backend; the PR flows take care of it.` };
}
