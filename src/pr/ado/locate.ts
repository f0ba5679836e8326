import { OttoError } from "../../core/index.ts";
import type { Config } from "../../config/index.ts";
import type { IdContext } from "../backend.ts";
import { normalizeRemoteUrl } from "../../workspace/index.ts";
import type { PrLocator } from "../types.ts";

type AdoConfig = Config["pr"]["providers"]["ado"];

/*
 * Azure DevOps PR URLs (https://learn.microsoft.com/en-us/azure/devops/repos/git/pull-requests):
 *   https://dev.azure.com/{org}/{project}/_git/{repo}/pullrequest/{id}
 *   https://{org}.visualstudio.com[/DefaultCollection]/{project}/_git/{repo}/pullrequest/{id}
 *   https://{server}/{path of base_url}/{collection}/{project}/_git/{repo}/pullrequest/{id}  (on premises)
 * A locator's repo is `org/project/repo`, the collection standing in for the org on premises.
 */

function basePath(config: AdoConfig): { host: string; prefix: string[] } {
  const base = new URL(config.base_url);
  return { host: base.hostname.toLowerCase(), prefix: base.pathname.split("/").filter(Boolean) };
}

export function matchesAdoHost(url: URL, config: AdoConfig): boolean {
  const host = url.hostname.toLowerCase();
  return host === "dev.azure.com" || host.endsWith(".visualstudio.com") || host === basePath(config).host;
}

export function parseAdoUrl(url: URL, config: AdoConfig): PrLocator | undefined {
  if (!matchesAdoHost(url, config)) return undefined;
  const host = url.hostname.toLowerCase();
  let segments = url.pathname
    .split("/")
    .filter(Boolean)
    .map((s) => decodeURIComponent(s));
  const legacy = /^([^.]+)\.visualstudio\.com$/.exec(host);
  if (legacy?.[1]) segments = [legacy[1], ...segments.filter((s) => s.toLowerCase() !== "defaultcollection")];
  else if (host !== "dev.azure.com") {
    const { prefix } = basePath(config);
    if (prefix.some((p, i) => segments[i]?.toLowerCase() !== p.toLowerCase())) return undefined;
    segments = segments.slice(prefix.length);
  }
  const git = segments.indexOf("_git");
  const [org, project] = segments;
  const repo = segments[git + 1];
  const pr = segments[git + 2]?.toLowerCase() === "pullrequest" ? segments[git + 3] : undefined;
  if (git !== 2 || !org || !project || !repo || !pr || !/^\d+$/.test(pr)) return undefined;
  return { provider: "ado", repo: `${org}/${project}/${repo}`, number: Number(pr) };
}

/** `42` (or `!42`): organization and project from the config, else from the origin remote. */
export function locateAdoId(id: string, context: IdContext, config: AdoConfig): PrLocator {
  const match = /^[!#]?(\d+)$/.exec(id.trim());
  if (!match) throw new OttoError("pr_bad_id", `'${id}' is not an Azure DevOps pull request id.`, "Pass a number (42) or the PR's URL.");
  const number = Number(match[1]);
  if (config.organization && config.project) return { provider: "ado", repo: `${config.organization}/${config.project}`, number };
  const remote = context.remoteUrl === undefined ? undefined : normalizeRemoteUrl(context.remoteUrl);
  const parts = remote?.split("/") ?? [];
  if (remote && parts[0] === "dev.azure.com" && parts.length === 4) return { provider: "ado", repo: parts.slice(1).join("/"), number };
  throw new OttoError(
    "pr_no_repo",
    `PR ${number}: otto does not know the Azure DevOps organization and project.`,
    "Set pr.providers.ado.organization and pr.providers.ado.project, run the command inside a clone of the repository, or pass the PR's URL.",
  );
}

/** Organization (or collection), project and repository of a locator; repo is undefined before the PR was read. */
export function adoParts(pr: Pick<PrLocator, "repo">): { org: string; project: string; repo: string | undefined } {
  const [org = "", project = "", repo] = pr.repo.split("/");
  return { org, project, repo };
}
