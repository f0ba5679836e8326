import { repoParams } from "./locate.ts";
import { mapPull, type PullPayload } from "./map.ts";
import type { GithubClient } from "./octokit.ts";

/**
 * The PRs of `repo` that changed at or after `since`, newest first (PrBackend.listRecentPrs): the
 * list sorted by updated_at, read a page of 100 at a time until a PR older than `since` or `max`.
 * https://docs.github.com/en/rest/pulls/pulls#list-pull-requests (state=all, sort=updated)
 */
export async function recentPulls(octokit: GithubClient, repo: string, since: Date, max: number) {
  const from = since.toISOString();
  const out = [];
  for (let page = 1; out.length < max; page++) {
    const { data } = await octokit.request("GET /repos/{owner}/{repo}/pulls", {
      ...repoParams({ repo }),
      state: "all",
      sort: "updated",
      direction: "desc",
      per_page: 100,
      page,
    });
    const pulls = data as unknown as PullPayload[];
    for (const pull of pulls) {
      if ((pull.updated_at ?? "") < from) return out;
      out.push(mapPull({ provider: "github", repo, number: pull.number }, pull));
      if (out.length >= max) return out;
    }
    if (pulls.length < 100) break;
  }
  return out;
}
