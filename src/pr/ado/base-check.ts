import type { BaseCheck, CallOptions } from "../backend.ts";
import type { PrInfo } from "../types.ts";
import type { AdoHttp } from "./http.ts";
import { adoParts } from "./locate.ts";
import { buildChecks, type BuildPayload } from "./map.ts";

/*
 * The default branch's newest completed build of one pipeline (Azure DevOps): the branch's
 * completed builds, newest finished first
 * (https://learn.microsoft.com/en-us/rest/api/azure/devops/build/builds/list), the first of the
 * pipeline the check names.
 */

export async function adoBaseCheck(http: AdoHttp, pr: PrInfo, name: string, options: CallOptions = {}): Promise<BaseCheck | undefined> {
  const { project } = adoParts(pr);
  const builds = await http.json<{ value: Array<BuildPayload & { sourceVersion?: string; finishTime?: string }> }>(
    `${encodeURIComponent(project)}/_apis/build/builds`,
    {
      query: {
        branchName: `refs/heads/${pr.targetBranch}`,
        statusFilter: "completed",
        queryOrder: "finishTimeDescending",
        $top: 50,
      },
      signal: options.signal,
    },
  );
  const build = builds.value.filter((b) => b.status === "completed" && b.definition.name === name).sort((a, b) => b.id - a.id)[0];
  if (!build) return undefined;
  const [check] = buildChecks([build]);
  if (!check) return undefined;
  return {
    state: check.state,
    sha: build.sourceVersion ?? "",
    ...(check.logId ? { logId: check.logId } : {}),
    ...(check.url ? { url: check.url } : {}),
  };
}
