import type { BaseCheck, BaseCheckOptions } from "../backend.ts";
import type { PrInfo } from "../types.ts";
import type { AdoHttp } from "./http.ts";
import { adoParts } from "./locate.ts";
import { buildChecks, type BuildPayload } from "./map.ts";

/*
 * The default branch's newest completed build of one pipeline (Azure DevOps): the pipeline is the
 * definition of the PR's failed build (read by its build id, the check's logId) and the branch's
 * builds are asked for by that definition's id
 * (https://learn.microsoft.com/en-us/rest/api/azure/devops/build/builds/list: `definitions`);
 * without a build id, by the check's name among the branch's completed builds.
 */

type Build = BuildPayload & { sourceVersion?: string; finishTime?: string };

export async function adoBaseCheck(
  http: AdoHttp,
  pr: PrInfo,
  name: string,
  options: BaseCheckOptions = {},
): Promise<BaseCheck | undefined> {
  const { project } = adoParts(pr);
  const path = `${encodeURIComponent(project)}/_apis/build/builds`;
  const failed = options.logId
    ? await http.json<Build | undefined>(`${path}/${encodeURIComponent(options.logId)}`, { signal: options.signal })
    : undefined;
  const definition = failed?.definition.id;
  const builds = await http.json<{ value: Build[] }>(path, {
    query: {
      branchName: `refs/heads/${pr.targetBranch}`,
      statusFilter: "completed",
      queryOrder: "finishTimeDescending",
      $top: 50,
      ...(definition !== undefined ? { definitions: String(definition) } : {}),
    },
    signal: options.signal,
  });
  const build = builds.value
    .filter((b) => b.status === "completed" && (definition !== undefined ? b.definition.id === definition : b.definition.name === name))
    .sort((a, b) => b.id - a.id)[0];
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
