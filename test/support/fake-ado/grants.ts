/*
 * What a pipeline's build identity (System.AccessToken) may call: each route the fake serves needs
 * one permission of Azure DevOps' security namespaces (Git Repositories: GenericRead,
 * GenericContribute, PullRequestContribute; Build: ViewBuilds, QueueBuilds; the area path's "Edit work
 * items in this node": WorkItemWrite), and the job
 * authorization scope decides which projects the token reaches at all
 * (https://learn.microsoft.com/en-us/azure/devops/pipelines/process/access-tokens#job-authorization-scope).
 * A route outside the grants is refused as Azure refuses it: 401 outside the scope, 403 without
 * the permission.
 */

export type AdoPermission = "GenericRead" | "GenericContribute" | "PullRequestContribute" | "ViewBuilds" | "QueueBuilds" | "WorkItemWrite";

export interface AdoGrants {
  /** "project": the pipeline's own project only; "collection": every project of the organization. */
  scope: "project" | "collection";
  /** The pipeline's project (by name), the one a "project" scope allows. */
  project: string;
  permissions: readonly AdoPermission[];
}

/** What "<project> Build Service (<organization>)" holds on a new project: read the code, view builds. */
export const BUILD_SERVICE_DEFAULTS: readonly AdoPermission[] = ["GenericRead", "ViewBuilds"];

const NEEDS: ReadonlyArray<[method: string, path: RegExp, permission: AdoPermission | "none"]> = [
  // Organization-level reads every identity of the organization has (who am I, the project's teams).
  ["GET", /^\/_apis\//, "none"],
  ["GET", /^\/[^/]+\/_apis\/policy\//, "none"],
  ["PATCH", /^\/[^/]+\/_apis\/policy\//, "QueueBuilds"],
  ["GET", /^\/[^/]+\/_apis\/build\//, "ViewBuilds"],
  ["PATCH", /^\/[^/]+\/_apis\/build\//, "QueueBuilds"],
  ["GET", /^\/[^/]+\/_apis\/git\//, "GenericRead"],
  ["POST", /^\/[^/]+\/_apis\/wit\/workitems\//, "WorkItemWrite"],
  // Creating a PR, threads, replies, edits, auto-complete.
  ["POST", /^\/[^/]+\/_apis\/git\//, "PullRequestContribute"],
  ["PATCH", /^\/[^/]+\/_apis\/git\//, "PullRequestContribute"],
];

const unauthorized = (who: string) => ({
  status: 401,
  body: { message: `TF400813: The user '${who}' is not authorized to access this resource.`, typeKey: "UnauthorizedRequestException" },
});

const forbidden = (permission: string, who: string) => ({
  status: 403,
  body: {
    message: `TF401027: You need the ${permission} permission to perform this action. Details: identity '${who}'.`,
    typeKey: "GitNeedsPermissionException",
  },
});

/** Azure's answer when `grants` refuse the call (`path` under the organization, `project` the route's), or undefined when they allow it. */
export function refusal(
  grants: AdoGrants,
  who: string,
  method: string,
  path: string,
  project: string | undefined,
): { status: number; body: unknown } | undefined {
  if (grants.scope === "project" && project !== undefined && project.toLowerCase() !== grants.project.toLowerCase())
    return unauthorized(who);
  const need = NEEDS.find(([m, p]) => m === method && p.test(path));
  // A route the table does not know is refused: a new call must say which permission it needs.
  if (!need) return forbidden("(unknown to the fake)", who);
  const [, , permission] = need;
  if (permission === "none" || grants.permissions.includes(permission)) return undefined;
  return forbidden(permission, who);
}
