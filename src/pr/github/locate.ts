import { OttoError } from "../../core/index.ts";
import type { Config } from "../../config/index.ts";
import type { IdContext } from "../backend.ts";
import { normalizeRemoteUrl } from "../../workspace/index.ts";
import type { PrLocator } from "../types.ts";

type GithubConfig = Config["pr"]["providers"]["github"];

/** Web hosts whose PR URLs are GitHub's: github.com, the configured hosts, and the Enterprise API host. */
export function githubHosts(config: GithubConfig): Set<string> {
  const hosts = new Set(["github.com", ...config.hosts.map((h) => h.toLowerCase())]);
  const api = new URL(config.api_url).hostname.toLowerCase();
  if (api !== "api.github.com") hosts.add(api);
  return hosts;
}

/** `https://github.com/<owner>/<repo>/pull/<n>[/files…]` → the PR. */
export function parseGithubUrl(url: URL, hosts: Set<string>): PrLocator | undefined {
  if (!hosts.has(url.hostname.toLowerCase())) return undefined;
  const match = /^\/([^/]+)\/([^/]+)\/pulls?\/(\d+)(?:\/|$)/.exec(url.pathname);
  if (!match) return undefined;
  return { provider: "github", repo: `${match[1]}/${match[2]}`, number: Number(match[3]) };
}

/** `42`, `#42` (the repository of the current directory) or `owner/repo#42`. */
export function locateGithubId(id: string, context: IdContext, hosts: Set<string>): PrLocator {
  const full = /^([\w.-]+)\/([\w.-]+)#(\d+)$/.exec(id.trim());
  if (full) return { provider: "github", repo: `${full[1]}/${full[2]}`, number: Number(full[3]) };
  const bare = /^#?(\d+)$/.exec(id.trim());
  if (!bare) {
    throw new OttoError("pr_bad_id", `'${id}' is not a GitHub pull request number.`, "Pass a number (42), owner/repo#42, or the PR's URL.");
  }
  const remote = context.remoteUrl === undefined ? undefined : normalizeRemoteUrl(context.remoteUrl);
  const parts = remote?.split("/") ?? [];
  if (!remote || parts.length !== 3 || !hosts.has(parts[0] ?? "")) {
    throw new OttoError(
      "pr_no_repo",
      `PR #${bare[1]}: the current directory has no GitHub origin remote, so otto cannot tell which repository it belongs to.`,
      `Pass owner/repo#${bare[1]} or the PR's URL.`,
    );
  }
  return { provider: "github", repo: `${parts[1]}/${parts[2]}`, number: Number(bare[1]) };
}

/** `owner/repo` as Octokit route parameters. */
export const repoParams = (pr: Pick<PrLocator, "repo">) => {
  const [owner = "", repo = ""] = pr.repo.split("/");
  return { owner, repo };
};
