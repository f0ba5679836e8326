import { afterEach } from "vitest";
import { createRepoWithRemote, type Repo } from "../../support/git.ts";

/** A clone on branch `feature` (a.txt, pushed, tracking a bare origin), removed after each test. */
export function useFeatureClone(): () => Promise<Repo> {
  const repos: Repo[] = [];
  afterEach(() => {
    for (const r of repos.splice(0)) r.cleanup();
  });
  return async () => {
    const repo = await createRepoWithRemote({ files: { "a.txt": "one\n" } });
    repos.push(repo);
    await repo.git(["switch", "-q", "-c", "feature"]);
    await repo.git(["push", "-q", "-u", "origin", "feature"]);
    return repo;
  };
}
