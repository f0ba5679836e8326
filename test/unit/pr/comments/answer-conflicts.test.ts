import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { answerComment, type AnswerDeps } from "../../../../src/pr/comments/answer-comment.ts";
import type { PrBackend, PrComment, PrInfo } from "../../../../src/pr/index.ts";
import type { SessionRunner } from "../../../../src/session/index.ts";
import { git, gitEnv } from "../../../support/git.ts";
import { useFeatureClone } from "../feature-clone.ts";
import { samplePr } from "../sample-pr.ts";

/*
 * An AGREE fix whose push meets a branch that moved with a conflicting change: commitAndPush
 * rebases, the shared conflict-resolution session (src/pr/resolve-conflicts.ts) runs once in
 * the worktree, and the reply names the pushed commit. Real git with a bare remote; the sessions
 * and the forge are fakes that record what they were asked.
 */

const featureClone = useFeatureClone();

const pr: PrInfo = samplePr({ sourceBranch: "feature" });

const comment: PrComment = {
  id: "review-7",
  kind: "inline",
  author: "alice",
  body: "Call it `limit`, not `max`.",
  createdAt: "2026-02-06T11:00:00Z",
  path: "a.ts",
  line: 1,
  resolved: false,
};

interface Recorded {
  sessions: Array<{ kind: "json" | "text"; agent: string; directory: string; prompt: string }>;
  forge: string[];
}

async function setup(resolution: { content: string; reply: string }) {
  const repo = await featureClone({ "a.ts": "export const max = 1;\n" });
  const other = await repo.other();

  const recorded: Recorded = { sessions: [], forge: [] };
  const sessions = {
    // The answering session: makes the fix; meanwhile someone pushes a conflicting change.
    runChildJson: async (options: { agent: string; directory: string }, prompt: string) => {
      recorded.sessions.push({ kind: "json", agent: options.agent, directory: options.directory, prompt });
      fs.writeFileSync(path.join(options.directory, "a.ts"), "export const limit = 1;\n");
      fs.writeFileSync(path.join(other, "a.ts"), "export const max = 2;\n");
      await git(["commit", "-qam", "raise max"], other);
      await git(["push", "-q", "origin", "feature"], other);
      return {
        value: { decision: "AGREE", reply: "Renamed `max` to `limit`.", fix_description: "Rename max to limit" },
        text: "",
        sessionID: "ses_answer",
        attempts: 1,
      };
    },
    // The conflict-resolution session.
    runChild: async (options: { agent: string; directory: string }, prompt: string) => {
      recorded.sessions.push({ kind: "text", agent: options.agent, directory: options.directory, prompt });
      fs.writeFileSync(path.join(options.directory, "a.ts"), resolution.content);
      return { text: resolution.reply, sessionID: "ses_resolve" };
    },
  } as unknown as SessionRunner;

  const backend = {
    name: "github",
    getComments: () => Promise.resolve([comment]),
    replyToComment: (_pr: PrInfo, id: string, body: string) => (recorded.forge.push(`reply ${id}: ${body}`), Promise.resolve()),
    resolveComment: (_pr: PrInfo, id: string, how: string) => (recorded.forge.push(`resolve ${id} ${how}`), Promise.resolve()),
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
  return { repo, deps, input, recorded };
}

describe("answerComment when the PR branch moved with a conflicting change", () => {
  it("runs the conflict-resolution session once, pushes the rebased fix without force, and replies 'Fixed in <sha>'", async () => {
    const { repo, deps, input, recorded } = await setup({
      content: "export const limit = 2;\n",
      reply: "a.ts: kept the new value 2 and the rename to limit.",
    });
    const answer = await answerComment(deps, input);

    expect(recorded.sessions.map((s) => [s.kind, s.agent, s.directory])).toEqual([
      ["json", "otto-executor", repo.dir],
      ["text", "otto-executor", repo.dir],
    ]);
    const resolvePrompt = recorded.sessions[1]?.prompt ?? "";
    expect(resolvePrompt).toContain("a.ts");
    expect(resolvePrompt).toContain("Rename max to limit");

    // The remote branch: the other person's commit, then otto's rebased fix on top (a fast-forward).
    const log = await repo.remoteLog("feature");
    expect(log.map((c) => c.subject).slice(0, 2)).toEqual(["Rename max to limit", "raise max"]);
    expect(await repo.remoteFile("a.ts", "feature")).toBe("export const limit = 2;\n");
    const sha = log[0]?.sha ?? "";
    expect(answer).toMatchObject({ status: "answered", decision: "AGREE", sha });
    if (answer.status === "answered") expect(answer.entry.action).toContain("rebased onto the moved branch");

    expect(recorded.forge).toEqual([
      expect.stringMatching(new RegExp(`^reply review-7: [^]*\\nFixed in ${sha.slice(0, 7)}: Renamed \`max\` to \`limit\`\\.$`)),
      "resolve review-7 resolved",
    ]);
  });

  it("pushes nothing and posts no reply when the resolution session gives up", async () => {
    const { repo, deps, input, recorded } = await setup({
      content: "<<<<<<< HEAD\nexport const max = 2;\n=======\nexport const limit = 1;\n>>>>>>> otto\n",
      reply: "TASK_FAILED: a.ts: both sides changed the same line",
    });
    await expect(answerComment(deps, input)).rejects.toMatchObject({ code: "comment_push_failed" });
    expect(recorded.sessions.map((s) => s.kind)).toEqual(["json", "text"]);
    expect((await repo.remoteLog("feature"))[0]?.subject).toBe("raise max");
    expect(recorded.forge).toEqual([]);
  });
});
