import { describe, expect, it } from "vitest";
import { mapAdoPull } from "../../../../src/pr/ado/map.ts";
import { mapPull, type PullPayload } from "../../../../src/pr/github/map.ts";
import { planStart } from "../../../../src/pr/fix/index.ts";
import { newDocument } from "../../../../src/pr/commands/add.ts";

const pull = (head: PullPayload["head"]["repo"]): PullPayload => ({
  number: 3,
  html_url: "https://github.com/o/r/pull/3",
  title: "T",
  state: "open",
  merged_at: null,
  created_at: "2026-03-01T10:00:00Z",
  node_id: "PR_3",
  user: { login: "dev" },
  head: { ref: "patch-1", sha: "abc", repo: head },
  base: { ref: "main", repo: { full_name: "O/R" } },
});
const locator = { provider: "github" as const, number: 3, repo: "o/r" };

describe("forks (the fix flow pushes only to the base repository)", () => {
  it("GitHub: a head repository other than the base is a fork; a deleted one too", () => {
    expect(mapPull(locator, pull({ full_name: "o/r" }))).toMatchObject({ fork: false });
    expect(mapPull(locator, pull({ full_name: "someone/r" }))).toMatchObject({ fork: true, headRepo: "someone/r" });
    expect(mapPull(locator, pull(null)).fork).toBe(true);
    const { fork } = mapPull(locator, { ...pull(undefined), base: { ref: "main" } });
    expect(fork).toBeUndefined();
  });

  it("Azure DevOps: forkSource marks a fork", () => {
    const base = {
      pullRequestId: 9,
      status: "active",
      title: "T",
      creationDate: "2026-03-01T10:00:00Z",
      sourceRefName: "refs/heads/f",
      targetRefName: "refs/heads/main",
      repository: { id: "r1", name: "app", project: { id: "p1", name: "payments" } },
    };
    const adoLocator = { provider: "ado" as const, number: 9, repo: "contoso/payments/app" };
    expect(mapAdoPull(adoLocator, base, "https://dev.azure.com").fork).toBe(false);
    expect(mapAdoPull(adoLocator, { ...base, forkSource: { repository: { name: "app-fork" } } }, "https://dev.azure.com")).toMatchObject({
      fork: true,
      headRepo: "app-fork",
    });
  });

  it("a fork is refused by the fix flow", () => {
    const info = mapPull(locator, pull({ full_name: "someone/r" }));
    const doc = newDocument(info, "github-o-r-3", 3, "2026-03-01T10:00:00.000Z");
    expect(planStart({ ...doc.data, status: "failed" }, info, new Date("2026-03-01T12:00:00Z"))).toEqual({ kind: "fork", notify: true });
  });
});
