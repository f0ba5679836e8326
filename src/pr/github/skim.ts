import type { CallOptions, PrSkim, RepoSkim } from "../backend.ts";
import { conditionalGet } from "./conditional.ts";
import { repoParams } from "./locate.ts";
import { mapPull, type PullPayload } from "./map.ts";
import type { GithubClient } from "./octokit.ts";

/** Pages of open PRs a skim reads at most (1,000 PRs); a tracked PR beyond them is read on its own. */
const MAX_SKIM_PAGES = 10;

/**
 * updated_at moves with every push, comment, review, title or state change; check runs and
 * statuses do not move it (the watcher reads those while CI runs, and all of a PR now and then).
 */
const pullVersion = (pull: PullPayload): string => `${pull.updated_at ?? ""} ${pull.head.sha} ${pull.state}`;

/**
 * The open PRs of `repo` for the watcher's skim (PrBackend.skimRepo): 100 a page, each page
 * conditional, no further page once every `tracked` number was seen.
 * https://docs.github.com/en/rest/pulls/pulls#list-pull-requests
 */
export async function skimOpenPulls(
  octokit: GithubClient,
  repo: string,
  tracked: readonly number[],
  options: CallOptions,
): Promise<RepoSkim> {
  const prs = new Map<number, PrSkim>();
  const wanted = new Set(tracked);
  for (let page = 1; page <= MAX_SKIM_PAGES && wanted.size > 0; page++) {
    const { value } = await conditionalGet(
      octokit,
      options.cache,
      "GET /repos/{owner}/{repo}/pulls",
      { ...repoParams({ repo }), state: "open", per_page: 100, page },
      (data) =>
        (data as PullPayload[]).map((pull) => ({
          pr: mapPull({ provider: "github", repo, number: pull.number }, pull),
          version: pullVersion(pull),
        })),
      options,
    );
    for (const skim of value) {
      prs.set(skim.pr.number, skim);
      wanted.delete(skim.pr.number);
    }
    if (value.length < 100) break;
  }
  return { prs, commentsInVersion: true };
}
