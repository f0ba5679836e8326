import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { answerComment, type AnswerDeps } from "../../../../src/pr/comments/answer-comment.ts";
import { isOttoError } from "../../../../src/core/index.ts";
import type { PrBackend, PrComment, PrInfo } from "../../../../src/pr/index.ts";
import type { SessionRunner } from "../../../../src/session/index.ts";
import { git, gitEnv } from "../../../support/git.ts";
import { useFeatureClone } from "../feature-clone.ts";
import { samplePr } from "../sample-pr.ts";

/*
 * A comment's AGREE fix that weakens the checks (docs/security.md) is not pushed unless the thread
 * names the file: real git with a bare remote; the session is a stand-in that edits the tree.
 */

const featureClone = useFeatureClone();
const pr: PrInfo = samplePr({ sourceBranch: "feature" });
const TEST = 'it("greets", () => {\n  expect(greet()).toBe("hi");\n});\n';

async function setup(
  body: string,
  act: (dir: string) => void,
  files: Record<string, string> = { "a.ts": "export const greet = () => 'hello';\n", "test/a.test.ts": TEST },
  checkCommands: string[] = [],
) {
  const repo = await featureClone(files);
  const comment: PrComment = {
    id: "review-3",
    kind: "inline",
    author: "alice",
    body,
    createdAt: "2026-02-06T11:00:00Z",
    path: "a.ts",
    line: 1,
    resolved: false,
  };
  const forge: string[] = [];
  const sessions = {
    runChildJson: async () => {
      act(repo.dir);
      return {
        value: { decision: "AGREE", reply: "Done.", fix_description: "Say hi", addressed_by: "" },
        text: "",
        sessionID: "ses_answer",
        attempts: 1,
      };
    },
  } as unknown as SessionRunner;
  const backend = {
    name: "github",
    getComments: () => Promise.resolve([comment]),
    replyToComment: (_pr: PrInfo, id: string, text: string) => (forge.push(`reply ${id}: ${text}`), Promise.resolve()),
    resolveComment: (_pr: PrInfo, id: string, how: string) => (forge.push(`resolve ${id} ${how}`), Promise.resolve()),
  } as unknown as PrBackend;
  const deps: AnswerDeps = {
    sessions,
    model: { providerID: "scripted", modelID: "coder" },
    timeoutMs: 60_000,
    secrets: [],
    // npm runs the checks of the last tests: no update check over the network.
    env: gitEnv({ npm_config_update_notifier: "false" }),
    checkCommands,
    sandbox: "auto",
    verifyTimeoutMs: 60_000,
    now: () => new Date("2026-02-06T12:00:00.000Z"),
    log: () => undefined,
  };
  const input = { pr, backend, work: { dir: repo.dir, remote: "origin", branch: "feature" }, comment, comments: [comment] };
  const remoteHead = async () => (await git(["rev-parse", "feature"], repo.remote)).trim();
  return { repo, deps, input, forge, remoteHead };
}

const skipTest = (dir: string): void => {
  fs.writeFileSync(path.join(dir, "a.ts"), "export const greet = () => 'hi';\n");
  fs.writeFileSync(path.join(dir, "test/a.test.ts"), TEST.replace("it(", "it.skip("));
};

describe("answerComment: an AGREE fix that weakens the checks", () => {
  it("is not pushed and nothing is posted when the thread does not name the file", async () => {
    const t = await setup("Say hi instead of hello.", skipTest);
    const before = await t.remoteHead();
    const error = await answerComment(t.deps, t.input).catch((e: unknown) => e);
    expect(isOttoError(error) && error.code).toBe("comment_weakens_checks");
    expect(String((error as Error).message)).toContain("(test/a.test.ts: skip or only markers added (.skip))");
    expect(await t.remoteHead()).toBe(before);
    expect(t.forge).toEqual([]);
  });

  it("is pushed when the reviewer named the test file", async () => {
    const t = await setup("Say hi, and skip `test/a.test.ts` until the copy is final.", skipTest);
    const before = await t.remoteHead();
    const answer = await answerComment(t.deps, t.input);
    expect(answer.status).toBe("answered");
    expect(await t.remoteHead()).not.toBe(before);
  });
});

describe("answerComment: an AGREE fix is judged against the PR's own checks", () => {
  const project = {
    "package.json": JSON.stringify({ name: "app", private: true, scripts: { test: "node test.js" } }),
    "a.js": "exports.greet = () => 'hello';\n",
    "test.js": "if (require('./a.js').greet() !== 'hello') {\n  console.error('greet() changed');\n  process.exit(1);\n}\n",
  };
  const sayHi = (dir: string): void => {
    fs.writeFileSync(path.join(dir, "a.js"), "exports.greet = () => 'hi';\n");
    fs.writeFileSync(path.join(dir, "test.js"), project["test.js"].replace("'hello'", "'hi'"));
  };

  it("a fix that passes only with its own change to the test script's file is not pushed when the thread does not name it", async () => {
    const t = await setup("Say hi instead of hello.", sayHi, project, ["npm test"]);
    const before = await t.remoteHead();
    const error = await answerComment(t.deps, t.input).catch((e: unknown) => e);
    expect(isOttoError(error) && error.code).toBe("comment_weakens_checks");
    expect(String((error as Error).message)).toContain(
      "the checks pass only with the fix's own changes to test.js: with the PR's versions of that file restored, `npm test` exit 1",
    );
    expect(await t.remoteHead()).toBe(before);
    expect(t.forge).toEqual([]);
  });

  it("is pushed when the thread names the file, and the reply says the test changed because it was named", async () => {
    const t = await setup("Say hi instead of hello, and update `test.js`.", sayHi, project, ["npm test"]);
    const before = await t.remoteHead();
    expect((await answerComment(t.deps, t.input)).status).toBe("answered");
    expect(await t.remoteHead()).not.toBe(before);
    expect(t.forge[0]).toContain("named as the cause: test.js");
  });
});
