import type { CallOptions } from "../backend.ts";
import { overallState } from "../pipeline.ts";
import type { PipelineStatus, PrInfo } from "../types.ts";
import type { AdoHttp } from "./http.ts";
import { adoParts } from "./locate.ts";
import { BUILD_POLICY, buildChecks, policyChecks, type BuildPayload, type PolicyEvaluationPayload } from "./map.ts";

/*
 * A PR's pipeline on Azure DevOps: its build and status policies (what its completion waits for),
 * else its merge builds; and beside either, the CI builds of its source branch at its head (a CI
 * trigger on the branch itself, outside any policy). A build policy with no display name is named
 * from its build's definition, read by the build id the evaluation carries
 * (https://learn.microsoft.com/rest/api/azure/devops/build/builds/get).
 */

interface List<T> {
  value: T[];
}

const seg = encodeURIComponent;

export async function adoPipelineStatus(http: AdoHttp, pr: PrInfo, options: CallOptions = {}): Promise<PipelineStatus> {
  const { project } = adoParts(pr);
  const builds = `${seg(project)}/_apis/build/builds`;
  const artifactId = `vstfs:///CodeReview/CodeReviewId/${pr.meta.projectId ?? ""}/${pr.number}`;
  const evaluations = await http.json<List<PolicyEvaluationPayload>>(`${seg(project)}/_apis/policy/evaluations`, {
    query: { artifactId },
    apiVersion: "7.1-preview.1",
    signal: options.signal,
  });
  const definitions = new Map<number, string>();
  for (const e of evaluations.value) {
    const id = e.context?.buildId;
    if (e.configuration.type.id !== BUILD_POLICY || e.configuration.settings?.displayName || !id || definitions.has(id)) continue;
    const build = await http.json<BuildPayload | undefined>(`${builds}/${id}`, { signal: options.signal });
    if (build?.definition.name) definitions.set(id, build.definition.name);
  }
  let checks = policyChecks(evaluations.value, definitions);
  if (checks.length === 0) {
    const merge = await http.json<List<BuildPayload>>(builds, {
      query: { branchName: `refs/pull/${pr.number}/merge`, queryOrder: "queueTimeDescending", $top: 50 },
      signal: options.signal,
    });
    checks = buildChecks(merge.value);
  }
  const branch = await http.json<List<BuildPayload & { sourceVersion?: string }>>(builds, {
    query: { branchName: `refs/heads/${pr.sourceBranch}`, queryOrder: "queueTimeDescending", $top: 50 },
    signal: options.signal,
  });
  const named = new Set(checks.map((c) => c.name));
  const own = buildChecks(branch.value.filter((b) => b.sourceVersion === pr.headSha)).filter((c) => !named.has(c.name));
  checks = [...checks, ...own].sort((a, b) => a.name.localeCompare(b.name));
  return { state: overallState(checks), headSha: pr.headSha, checks };
}
