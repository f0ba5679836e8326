import { describe, expect, it } from "vitest";
import { findOnBranch, parseAddressedBy } from "../../../../src/pr/comments/addressed-by.ts";
import { answerComment, type AnswerDeps } from "../../../../src/pr/comments/answer-comment.ts";
import type { PrBackend, PrComment, PrInfo } from "../../../../src/pr/index.ts";
import type { SessionRunner } from "../../../../src/session/index.ts";
import { git, gitEnv } from "../../../support/git.ts";
import { useFeatureClone } from "../feature-clone.ts";
import { samplePr } from "../sample-pr.ts";

/*
 * An AGREE whose session changed nothing: the thread is resolved as already addressed only when
 * the model names a commit that is on the PR's branch on the remote; otherwise otto says what it
 * could not do and leaves the thread open. Real git with a bare remote; the session and the forge
 * are fakes that record what they were asked.
 */

const featureClone = useFeatureClone();
const pr: PrInfo = samplePr({ sourceBranch: "feature" });
const comment: PrComment = {
  id: "review-9",
  kind: "inline",
  author: "alice",
  body: "Guard against a null user.",
  createdAt: "2026-02-06T11:00:00Z",
  path: "a.ts",
  line: 1,
  resolved: false,
};

async function setup(addressedBy: (shas: { pushed: string; local: string }) => string | undefined) {
  const repo = await featureClone({ "a.ts": "export const user = null;\n" });
  const pushed = await repo.commit("Guard null user", { "a.ts": "export const user = null ?? {};\n" });
  await repo.git(["push", "-q", "origin", "feature"]);
  // A commit that exists in the clone but not on the PR's branch.
  await repo.git(["switch", "-q", "-c", "elsewhere"]);
  const local = await repo.commit("Elsewhere", { "b.ts": "x\n" });
  await repo.git(["switch", "-q", "feature"]);

  const forge: string[] = [];
  const named = addressedBy({ pushed, local });
  const sessions = {
    runChildJson: async () => ({
      value: { decision: "AGREE", reply: "`a.ts` already guards it on line 1.", fix_description: "", addressed_by: named ?? "" },
      text: "",
      sessionID: "ses_answer",
      attempts: 1,
    }),
  } as unknown as SessionRunner;
  const backend = {
    name: "github",
    getComments: () => Promise.resolve([comment]),
    replyToComment: (_pr: PrInfo, id: string, body: string) => (forge.push(`reply ${id}: ${body}`), Promise.resolve()),
    resolveComment: (_pr: PrInfo, id: string, how: string) => (forge.push(`resolve ${id} ${how}`), Promise.resolve()),
  } as unknown as PrBackend;
  const deps: AnswerDeps = {
    sessions,
    model: { providerID: "scripted", modelID: "coder" },
    timeoutMs: 60_000,
    secrets: [],
    env: gitEnv(),
    checkCommands: [],
    sandbox: "auto",
    verifyTimeoutMs: 60_000,
    now: () => new Date("2026-02-06T12:00:00.000Z"),
    log: () => undefined,
  };
  const input = { pr, backend, work: { dir: repo.dir, remote: "origin", branch: "feature" }, comment, comments: [comment] };
  const remoteHead = async () => (await git(["rev-parse", "feature"], repo.remote)).trim();
  return { repo, deps, input, forge, pushed, local, remoteHead };
}

describe("answerComment: AGREE with no change", () => {
  it("resolves the thread as already addressed when the named commit is on the PR's branch", async () => {
    const t = await setup(({ pushed }) => pushed.slice(0, 7));
    const before = await t.remoteHead();
    const answer = await answerComment(t.deps, t.input);
    expect(await t.remoteHead()).toBe(before);
    expect(t.forge).toEqual([
      expect.stringMatching(new RegExp(`\\nAlready addressed in ${t.pushed.slice(0, 7)}: \`a.ts\` already guards it on line 1\\.$`)),
      "resolve review-9 resolved",
    ]);
    expect(answer).toMatchObject({ status: "answered", decision: "AGREE" });
    expect(answer.entry.action).toBe(`Agreed; no change made, already addressed in ${t.pushed.slice(0, 7)} on feature; thread resolved`);
  });

  it("leaves the thread open and says so when no commit is named", async () => {
    const t = await setup(() => undefined);
    const answer = await answerComment(t.deps, t.input);
    expect(t.forge).toHaveLength(1);
    expect(t.forge[0]).toContain(
      "\notto agrees but made no change and found no commit that addresses this; leaving it open for a person.\n\n`a.ts` already guards it",
    );
    expect(answer.entry.action).toBe(
      "Agreed but no change made and no commit named that addresses it; reply posted, thread left open for a person",
    );
  });

  it("leaves the thread open when the named commit is not on the PR's branch, or is not a commit id", async () => {
    const elsewhere = await setup(({ local }) => local);
    const answer = await answerComment(elsewhere.deps, elsewhere.input);
    expect(elsewhere.forge.some((f) => f.startsWith("resolve"))).toBe(false);
    expect(elsewhere.forge[0]).toContain("leaving it open for a person");
    expect(answer.entry.action).toContain(`the named commit ${elsewhere.local.slice(0, 7)} is not on feature`);

    const bogus = await setup(() => "--output=/tmp/x");
    await answerComment(bogus.deps, bogus.input);
    expect(bogus.forge.some((f) => f.startsWith("resolve"))).toBe(false);
  });
});

describe("parseAddressedBy / findOnBranch", () => {
  it("takes hex commit ids only", () => {
    expect(parseAddressedBy(" 3F9C2AB ")).toBe("3f9c2ab");
    expect(parseAddressedBy("HEAD")).toBeUndefined();
    expect(parseAddressedBy("-n1")).toBeUndefined();
    expect(parseAddressedBy("abc")).toBeUndefined();
    expect(parseAddressedBy("")).toBeUndefined();
  });

  it("finds a commit of the remote branch, not one it lacks or one that does not exist", async () => {
    const t = await setup(() => undefined);
    const base = { dir: t.repo.dir, remote: "origin", branch: "feature", env: gitEnv() };
    expect(await findOnBranch({ ...base, sha: t.pushed.slice(0, 8) })).toBe(t.pushed);
    expect(await findOnBranch({ ...base, sha: t.local })).toBeUndefined();
    expect(await findOnBranch({ ...base, sha: "0123456789abcdef0123" })).toBeUndefined();
  });
});
