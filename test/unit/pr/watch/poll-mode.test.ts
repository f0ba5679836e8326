import { describe, expect, it } from "vitest";
import { PrFrontmatter, type PrDocument } from "../../../../src/pr/store/document.ts";
import { pollMode } from "../../../../src/pr/watch/poll-mode.ts";
import type { PrSkim } from "../../../../src/pr/backend.ts";

const now = new Date("2026-03-01T12:00:00Z");
const MIN = 60_000;

function doc(data: Partial<PrFrontmatter>): PrDocument {
  const base = PrFrontmatter.parse({
    id: 7,
    provider: "github",
    repo: "octo/app",
    status: "green",
    url: "https://github.com/octo/app/pull/7",
    created: "2026-03-01T10:00:00Z",
  });
  return {
    key: "github-octo-app-7",
    data: { ...base, pipeline: "success", seen_version: "v1", full_checked: new Date(now.getTime() - MIN).toISOString(), ...data },
    sections: [],
    log: [],
  };
}

const skim = (version: string): PrSkim => ({
  version,
  pr: {
    provider: "github",
    repo: "octo/app",
    number: 7,
    url: "",
    title: "",
    state: "open",
    draft: false,
    sourceBranch: "b",
    targetBranch: "main",
    headSha: "abc",
    author: "a",
    createdAt: "",
    meta: {},
  },
});
const mode = (d: PrDocument, s: PrSkim | null = skim("v1"), force = false) =>
  pollMode({ doc: d, skim: s ?? undefined, now, fullEveryMs: 10 * MIN, force });

describe("how much of a PR a watcher cycle reads", () => {
  it("reads nothing more of a PR whose list entry did not change and whose CI finished", () => {
    expect(mode(doc({}))).toBe("skip");
    expect(mode(doc({ pipeline: "failure", status: "failed" }))).toBe("skip");
    expect(mode(doc({ pipeline: "none", status: "watching" }))).toBe("skip");
  });

  it("reads only the checks while CI runs or a fix is under way", () => {
    expect(mode(doc({ pipeline: "pending", status: "watching" }))).toBe("pipeline");
    expect(mode(doc({ pipeline: undefined, status: "watching" }))).toBe("pipeline");
    expect(mode(doc({ pipeline: "failure", status: "fixing" }))).toBe("pipeline");
  });

  it("reads everything when the PR changed, is missing from the list, has comments waiting, failed last time, is due, or the user asked", () => {
    expect(mode(doc({}), skim("v2"))).toBe("full");
    expect(mode(doc({ seen_version: undefined }))).toBe("full");
    expect(mode(doc({}), null)).toBe("full");
    expect(mode(doc({ unseen_comments: 2 }))).toBe("full");
    expect(mode(doc({ errors: 1 }))).toBe("full");
    expect(mode(doc({ full_checked: new Date(now.getTime() - 10 * MIN).toISOString() }))).toBe("full");
    expect(mode(doc({ full_checked: undefined }))).toBe("full");
    expect(mode(doc({}), skim("v1"), true)).toBe("full");
  });
});
