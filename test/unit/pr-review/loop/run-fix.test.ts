import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runFix } from "../../../../src/pr-review/loop/run-fix.ts";
import type { RunContext } from "../../../../src/pr-review/loop/run-review.ts";
import type { FixReply } from "../../../../src/pr-review/loop/schemas.ts";
import { gitEnv, type Repo } from "../../../support/git.ts";
import { useFeatureClone } from "../../pr/feature-clone.ts";
import { finding } from "./helpers.ts";

/*
 * The loop's fix step against real git (a clone on `feature` with a bare origin); the fix session
 * is a stand-in that edits (or not) the tree and answers the envelope.
 */

const GHP = `ghp_${"a1B2c3D4e5".repeat(4)}`;
const CONFIGURED = "configured-secret-value";

const setup = useFeatureClone();

/** A RunContext whose fix session runs `act` in the tree, then answers `reply`. */
function context(repo: Repo, act: () => void, reply: FixReply, verify: string[] = []): RunContext {
  const child = {
    promptJson: async () => {
      act();
      return { value: reply };
    },
    close: async () => undefined,
  };
  const sessions = { openChild: async () => child };
  return {
    runtime: { env: gitEnv(), sessions },
    setup: {
      dir: repo.dir,
      checkoutDir: repo.dir,
      baseline: { entries: {} },
      detached: false,
      remote: "origin",
      targetRef: "origin/main",
      changedFiles: [],
      rules: { repo: [], user: [], problems: [] },
      pr: { number: 1, title: "A PR", sourceBranch: "feature" },
      config: { pr: { verify }, sandbox: "auto", git: { hooks: "skip" } },
      secrets: [CONFIGURED],
      fixModel: { providerID: "mock", modelID: "m3" },
    },
    reviewTimeoutMs: 1000,
    rulesKey: repo.dir,
  } as unknown as RunContext;
}

const options = { fixTimeoutMs: 1000, verifyTimeoutMs: 1000 };

describe("loop runFix", () => {
  it("sanitizes the commit message it pushes: a secret in a finding title never reaches the remote", async () => {
    const repo = await setup();
    const issue = finding("P1", `Leaks ${GHP} and ${CONFIGURED} in the log`);
    const ctx = context(repo, () => fs.writeFileSync(path.join(repo.dir, "a.txt"), "fixed\n"), {
      fixedIssues: [{ findingId: issue.id, description: "done" }],
      rejectedIssues: [],
    });
    const outcome = await runFix(ctx, { prNumber: 1, round: 1, issuesToFix: [issue], optionalIssues: [] }, options);
    expect(outcome.failure).toBeUndefined();
    expect(outcome.push?.outcome).toBe("pushed");
    const message = await repo.gitRemote(["log", "-1", "--format=%B", "feature"]);
    expect(message).toContain(`${issue.id}: Leaks [REDACTED] and [REDACTED] in the log`);
    expect(message).not.toContain(GHP);
    expect(message).not.toContain(CONFIGURED);
  });

  it("a fix session that reports findings fixed but changes nothing is reported as such, nothing pushed", async () => {
    const repo = await setup();
    const before = await repo.remoteLog("feature");
    const issue = finding("P1", "Misspelt greeting");
    const ctx = context(repo, () => undefined, { fixedIssues: [{ findingId: issue.id, description: "fixed it" }], rejectedIssues: [] });
    const outcome = await runFix(ctx, { prNumber: 1, round: 1, issuesToFix: [issue], optionalIssues: [] }, options);
    expect(outcome.push?.outcome).toBe("nothing");
    expect(outcome.failure).toBe("the fix agent reported 1 finding(s) fixed, but the branch did not move (no change to commit or push).");
    expect(await repo.remoteLog("feature")).toEqual(before);
  });

  it("a fix that deletes a test no finding names is refused, nothing pushed; a finding that names it lets it through", async () => {
    const TEST = 'it("adds", () => {\n  expect(add(1, 2)).toBe(3);\n});\n';
    const repo = await setup({ "a.txt": "one\n", "test/math.test.js": TEST });
    const before = await repo.remoteLog("feature");
    const issue = finding("P1", "Greeting is misspelt", { file: "a.txt" });
    const deleteTest = () => {
      fs.writeFileSync(path.join(repo.dir, "a.txt"), "fixed\n");
      fs.rmSync(path.join(repo.dir, "test/math.test.js"));
    };
    const reply = { fixedIssues: [{ findingId: issue.id, description: "done" }], rejectedIssues: [] };
    const refused = await runFix(
      context(repo, deleteTest, reply),
      { prNumber: 1, round: 1, issuesToFix: [issue], optionalIssues: [] },
      options,
    );
    expect(refused.failure).toBe(
      `the fix weakens the checks in files no finding names (test/math.test.js: test file deleted): nothing was pushed; the fix agent's changes are left uncommitted in ${repo.dir}.`,
    );
    expect(refused.push).toBeUndefined();
    expect(await repo.remoteLog("feature")).toEqual(before);

    const obsolete = finding("P2", "test/math.test.js tests the removed add(); delete it");
    const allowed = await runFix(
      context(repo, () => undefined, { fixedIssues: [{ findingId: obsolete.id, description: "deleted" }], rejectedIssues: [] }),
      { prNumber: 1, round: 2, issuesToFix: [obsolete], optionalIssues: [] },
      options,
    );
    expect(allowed.failure).toBeUndefined();
    expect(allowed.push?.outcome).toBe("pushed");
    expect(await repo.remoteFile("test/math.test.js", "feature")).toBeUndefined();
  });

  it("a fix that passes only because it took process.exit(1) out of the checked test is refused with the PR's test restored; nothing pushed", async () => {
    const TEST = "if (require('./a.js').add(1, 2) !== 3) {\n  console.error('add is wrong');\n  process.exit(1);\n}\n";
    const repo = await setup({ "a.js": "exports.add = (a, b) => a - b;\n", "test.js": TEST });
    const before = await repo.remoteLog("feature");
    const issue = finding("P1", "add() subtracts", { file: "a.js" });
    const reply = { fixedIssues: [{ findingId: issue.id, description: "done" }], rejectedIssues: [] };
    const cheat = () => fs.writeFileSync(path.join(repo.dir, "test.js"), TEST.replace("  process.exit(1);\n", ""));
    const outcome = await runFix(
      context(repo, cheat, reply, ["node test.js"]),
      { prNumber: 1, round: 1, issuesToFix: [issue], optionalIssues: [] },
      { fixTimeoutMs: 1000, verifyTimeoutMs: 60_000 },
    );
    expect(outcome.failure).toBe(
      `the checks pass only with the fix's own changes to test.js: with the PR's versions of that file restored, \`node test.js\` exit 1: nothing was pushed; the fix agent's changes are left uncommitted in ${repo.dir}.`,
    );
    expect(await repo.remoteLog("feature")).toEqual(before);
  });
});
