import path from "node:path";
import { afterEach } from "vitest";
import { createRepoWithRemote, git, type Repo } from "../../support/git.ts";

/**
 * A clone on branch `feature` (pushed, tracking a bare origin), removed after each test; and
 * `other`, a second clone of it by someone else, to move the remote branch behind otto's back.
 */
export function useFeatureClone(): (files?: Record<string, string>) => Promise<Repo & { other(): Promise<string> }> {
  const repos: Repo[] = [];
  afterEach(() => {
    for (const r of repos.splice(0)) r.cleanup();
  });
  return async (files = { "a.txt": "one\n" }) => {
    const repo = await createRepoWithRemote({ files });
    repos.push(repo);
    await repo.git(["switch", "-q", "-c", "feature"]);
    await repo.git(["push", "-q", "-u", "origin", "feature"]);
    const other = async (): Promise<string> => {
      const dir = path.join(path.dirname(repo.dir), "other");
      await git(["clone", "-q", "-b", "feature", repo.remote, dir], path.dirname(repo.dir));
      await git(["config", "user.name", "Someone Else"], dir);
      await git(["config", "user.email", "else@example.invalid"], dir);
      return dir;
    };
    return Object.assign(repo, { other });
  };
}
