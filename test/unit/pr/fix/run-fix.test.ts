import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OttoError } from "../../../../src/core/index.ts";
import { newDocument } from "../../../../src/pr/commands/add.ts";
import { runFix, type FixDeps } from "../../../../src/pr/fix/index.ts";
import type { PushInput, PushResult } from "../../../../src/workspace/index.ts";
import { createPrStore, type PipelineStatus, type PrBackend, type PrInfo, type PrStore } from "../../../../src/pr/index.ts";
import type { NotifyEvent } from "../../../../src/notify/index.ts";
import type { SessionRunner } from "../../../../src/session/index.ts";
import type { FixReview } from "../../../../src/pr/fix/sessions.ts";
import { createRepo, gitEnv, type Repo } from "../../../support/git.ts";
import { testConfig } from "../support.ts";
import { fixPr } from "./fix-pr.ts";

/*
 * runFix with real git and a real store, and fakes for what is remote or a model: the backend, the
 * session runner (answers by prompt), the push (an outcome chosen by the test), the notifier.
 */

const KEY = "github-o-r-7";
const pr = (over: Partial<PrInfo> = {}): PrInfo => fixPr({ headSha: "1111111aaaa", fork: false, ...over });
const pipeline: PipelineStatus = { state: "failure", headSha: "1111111aaaa", checks: [{ name: "unit", state: "failure", logId: "5" }] };
const SUMMARY = "BEGIN_DOCUMENT\n# Pipeline Failure Summary\n\n## Verdict\ncode: broken\nEND_DOCUMENT";

describe("runFix", () => {
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanup.splice(0)) c();
  });

  /** `reviews`: the review session's verdicts in order (APPROVE once they run out); an Error is thrown. */
  async function setup(
    options: {
      clone?: boolean;
      push?: PushResult["outcome"];
      fixReply?: string;
      reviews?: Array<FixReview | Error>;
      /** What the fix session does in the tree (default: writes fix.txt). */
      fix?: (dir: string) => void;
      summary?: string;
    } = {},
  ) {
    const repo: Repo = await createRepo({ remote: true });
    const data = fs.mkdtempSync(path.join(os.tmpdir(), "otto-fix-"));
    cleanup.push(
      () => void repo.cleanup(),
      () => fs.rmSync(data, { recursive: true, force: true }),
    );
    await repo.git(["checkout", "-q", "-b", "feature/x"]);
    if (options.clone !== false) await repo.git(["remote", "set-url", "origin", "https://github.com/o/r"]);
    const store: PrStore = createPrStore(path.join(data, "prs"));
    await store.create({ ...newDocument(pr(), KEY, 3, "2026-03-01T10:00:00.000Z"), key: KEY });
    const prompts: string[] = [];
    const children: Array<{ agent: string; model: string; directory: string }> = [];
    const sessions = {
      runChild: async (child: { agent: string; model: { modelID: string }; directory: string }, prompt: string) => {
        prompts.push(prompt);
        children.push({ agent: child.agent, model: child.model.modelID, directory: child.directory });
        if (prompt.includes("Another engineer will fix it")) return { text: options.summary ?? SUMMARY };
        if (options.fix) options.fix(repo.dir);
        else fs.writeFileSync(path.join(repo.dir, "fix.txt"), "fixed\n");
        return { text: options.fixReply ?? "Fix summary: Fix it" };
      },
      runChildJson: async (child: { agent: string; model: { modelID: string }; directory: string }, prompt: string) => {
        prompts.push(prompt);
        children.push({ agent: child.agent, model: child.model.modelID, directory: child.directory });
        const next = reviews.shift() ?? { verdict: "APPROVE", reasons: ["sound"] };
        if (next instanceof Error) throw next;
        return { value: next, text: "", rescued: false };
      },
    } as unknown as SessionRunner;
    const reviews = [...(options.reviews ?? [])];
    const pushes: PushInput[] = [];
    const notified: NotifyEvent[] = [];
    const backend = { getBuildLogs: async () => "Error: boom", postComment: async () => undefined } as unknown as PrBackend;
    const deps: FixDeps = {
      store,
      config: testConfig({ models: { primary: "mock/m1" } }),
      secrets: [],
      notify: async (event) => {
        notified.push(event);
        return { delivered: [], failed: [] };
      },
      sessions,
      // The work lock lives under XDG_DATA_HOME: keep it out of the real home.
      env: gitEnv({ XDG_DATA_HOME: data }),
      cwd: repo.dir,
      models: async () => ({
        analysis: { providerID: "mock", modelID: "m1" },
        fix: { providerID: "mock", modelID: "m2" },
        review: { providerID: "mock", modelID: "m3" },
      }),
      now: () => new Date("2026-03-01T12:00:00.000Z"),
      log: () => undefined,
      push: async (input) => {
        pushes.push(input);
        if (options.push === "conflict") {
          // What commitAndPush leaves after an aborted rebase: the fix committed, not pushed.
          await repo.git(["add", "-A"]);
          await repo.git(["commit", "-qm", "fix"]);
        }
        return {
          outcome: options.push ?? "pushed",
          sha: "2222222bbbb",
          committed: true,
          kept: [],
          ignored: [],
          rebased: false,
          detail: `outcome ${options.push ?? "pushed"}`,
        };
      },
    };
    const doc = async () => (await store.read(KEY))!;
    return { repo, store, deps, prompts, children, pushes, notified, backend, doc };
  }

  it("an error (no local clone) is recorded, the status is failed, and the watcher notifies a person once per head", async () => {
    const t = await setup({ clone: false });
    const run = async () => runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "watcher" });
    await expect(run()).rejects.toThrow(/Cannot find local repo for https:\/\/github.com\/o\/r/);
    const after = await t.doc();
    expect(after.data).toMatchObject({ status: "failed", fix_attempts: 0, human_sha: "1111111aaaa" });
    expect(after.data.fix_started).toBeUndefined();
    expect(after.sections[0]?.body).toMatch(/^### Error — 2026-03-01T12:00:00.000Z\n- \*\*Trigger\*\*: watcher/);
    await expect(run()).rejects.toThrow(/Cannot find local repo/);
    expect(t.notified.map((n) => n.kind)).toEqual(["human_needed"]);
    expect(t.prompts).toEqual([]);
  });

  it("refuses a local branch with commits the PR's branch lacks: nothing analysed, nothing pushed, recorded as an error", async () => {
    const t = await setup();
    // origin is spelt as the PR's URL and reaches the bare remote, so the fetch works.
    await t.repo.git(["config", `url.${t.repo.remote}.insteadOf`, "https://github.com/o/r"]);
    await t.repo.git(["push", "-q", "origin", "feature/x"]);
    const sha = await t.repo.commit("Local only", { "local.txt": "mine\n" });
    const run = runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
    await expect(run).rejects.toMatchObject({
      code: "pr_local_ahead",
      message: expect.stringContaining(`${sha.slice(0, 7)} Local only`) as unknown,
    });
    expect(t.prompts).toEqual([]);
    expect(t.pushes).toEqual([]);
    const after = await t.doc();
    expect(after.data).toMatchObject({ status: "failed", fix_attempts: 0 });
    expect(after.sections[0]?.body).toContain("commit(s) that are not on origin/feature/x");
  });

  it("a tree where git knows no identity (user.useConfigOnly, none set): refused before any model call, recorded with the fix", async () => {
    const t = await setup();
    await t.repo.git(["config", `url.${t.repo.remote}.insteadOf`, "https://github.com/o/r"]);
    await t.repo.git(["push", "-q", "origin", "feature/x"]);
    await t.repo.git(["config", "--unset", "user.email"]);
    await t.repo.git(["config", "user.useConfigOnly", "true"]);
    const run = runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
    await expect(run).rejects.toMatchObject({
      code: "git_identity",
      fix: expect.stringContaining("run /otto-pr fix again") as unknown,
    });
    expect(t.prompts).toEqual([]);
    expect(t.pushes).toEqual([]);
    const after = await t.doc();
    expect(after.data).toMatchObject({ status: "failed", fix_attempts: 0 });
    expect(after.sections[0]?.body).toContain("does not know who you are");
  });

  it("a watcher fix cancelled in its fix session pushes nothing, notifies nobody and goes back to watching", async () => {
    const t = await setup();
    const controller = new AbortController();
    const sessions = t.deps.sessions as unknown as { runChild: (child: unknown, prompt: string) => Promise<{ text: string }> };
    const answer = sessions.runChild;
    sessions.runChild = async (child, prompt) => {
      if (prompt.includes("Another engineer will fix it")) return answer(child, prompt);
      // The watcher stops while the fix session runs: the session is aborted.
      controller.abort(new Error("the PR watcher is stopping"));
      throw new OttoError("session_aborted", "The model call was cancelled.");
    };
    await expect(
      runFix({ ...t.deps, signal: controller.signal }, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "watcher" }),
    ).rejects.toThrow("cancelled");
    expect(t.pushes).toEqual([]);
    expect(t.notified).toEqual([]);
    const after = await t.doc();
    expect(after.data).toMatchObject({ status: "watching", fix_attempts: 0 });
    expect(after.data.fix_started).toBeUndefined();
    expect(after.sections[0]?.body).toMatch(/^### Cancelled — /);
    expect(after.log.at(-1)).toContain("fixing → watching: fix cancelled; the next poll hands the failure back");
  });

  it("does not start while another fix of the PR runs", async () => {
    const t = await setup();
    await t.store.update(KEY, (d) => ({ ...d, data: { ...d.data, status: "fixing", fix_started: "2026-03-01T11:59:00.000Z" } }));
    const out = await runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
    expect(out.result).toBe("busy");
    expect(t.prompts).toEqual([]);
  });

  it("a head that changes opencode.json: the watcher opens no session and notifies once per head; /otto-pr fix by hand proceeds and accepts it", async () => {
    const t = await setup();
    await t.repo.commit("Add tooling", {
      "opencode.json": '{ "mcp": { "x": { "type": "local", "command": ["sh"] } } }\n',
      ".opencode/plugin/x.js": "export default 1;\n",
    });
    const watcher = async (head = "1111111aaaa") =>
      runFix(t.deps, {
        doc: await t.doc(),
        pr: pr({ headSha: head }),
        pipeline: { ...pipeline, headSha: head },
        backend: t.backend,
        trigger: "watcher",
      });

    const first = await watcher();
    expect(first.result).toBe("deferred");
    expect(first.lines.join("\n")).toContain("run /otto-pr fix 7");
    await watcher();
    expect(t.children).toEqual([]);
    expect(t.pushes).toEqual([]);
    expect(t.notified).toHaveLength(1);
    expect(t.notified[0]).toMatchObject({
      kind: "human_needed",
      title: "PR #7: its OpenCode configuration changed; otto waits for a person",
    });
    expect(t.notified[0]?.text).toContain("`.opencode/plugin/x.js`, `opencode.json`");
    let after = await t.doc();
    expect(after.data).toMatchObject({ status: "watching", fix_attempts: 0, config_hold_sha: "1111111aaaa" });
    expect(after.data.config_ok_sha).toBeUndefined();
    expect(after.log.join("\n")).toContain(
      "fixing → watching: otto did not start a fix session: the PR's head changes OpenCode configuration",
    );
    // A new head that still changes it: one more notification, still no session.
    await watcher("1111111bbbb");
    expect(t.notified).toHaveLength(2);
    expect(t.children).toEqual([]);

    const manual = await runFix(t.deps, {
      doc: await t.doc(),
      pr: pr({ headSha: "1111111bbbb" }),
      pipeline: { ...pipeline, headSha: "1111111bbbb" },
      backend: t.backend,
      trigger: "manual",
    });
    expect(manual.result).toBe("pushed");
    expect(t.children.map((c) => c.agent)).toEqual(["otto-reviewer", "otto-executor", "otto-reviewer"]);
    after = await t.doc();
    expect(after.data.config_ok_sha).toBe(await t.repo.git(["rev-parse", "HEAD"]));
    expect(after.log.join("\n")).toContain("which changes OpenCode configuration (.opencode/plugin/x.js, opencode.json): accepted");
    expect(t.notified).toHaveLength(2);
  });

  it("pushes with the fix model, notices a head pushed by someone else, and records the attempt", async () => {
    const t = await setup();
    await t.store.update(KEY, (d) => ({ ...d, data: { ...d.data, status: "failed", fix_sha: "0000000cccc", fix_attempts: 1 } }));
    const out = await runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "watcher" });
    expect(out.result).toBe("pushed");
    expect(t.children).toEqual([
      { agent: "otto-reviewer", model: "m1", directory: t.repo.dir },
      { agent: "otto-executor", model: "m2", directory: t.repo.dir },
      { agent: "otto-reviewer", model: "m3", directory: t.repo.dir },
    ]);
    expect(t.pushes).toHaveLength(1);
    expect(t.pushes[0]).toMatchObject({ dir: t.repo.dir, branch: "feature/x", remote: "origin" });
    expect(t.pushes[0]?.message).toMatch(/^Fix it\n\n.*\n\nOtto-Fix: github-o-r-7 attempt 2\n$/s);
    const after = await t.doc();
    expect(after.data).toMatchObject({ status: "watching", fix_attempts: 2, fix_sha: "2222222bbbb" });
    expect(after.log.join("\n")).toContain("head 1111111 is not otto's last fix 0000000 (pushed by someone else); fix attempts not reset");
    expect(after.log.join("\n")).toContain("fix attempt 2/3: pushed to feature/x: Fix it");
  });

  it("with no checks configured or found, the summary and the PR document say the fix was pushed without local checks", async () => {
    const t = await setup();
    const out = await runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
    expect(out.result).toBe("pushed");
    expect(t.pushes).toHaveLength(1);
    expect(out.lines[0]).toBe(
      "Attempt 1/3: pushed `2222222` to feature/x (pushed without local checks: none found), reviewed by mock/m3: approved; the next poll shows whether the pipeline passes.",
    );
    const after = await t.doc();
    expect(after.sections[0]?.body).toContain("- **Result**: pushed to feature/x: Fix it (pushed without local checks: none found)");
    expect(after.log.join("\n")).toContain("checks: none detected (set pr.verify to run some)");
  });

  it("stops after a conflict (another session would meet it again); gives up when the last attempt fails", async () => {
    const t = await setup({ push: "conflict" });
    const start = (await t.repo.git(["rev-parse", "HEAD"])).trim();
    const out = await runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
    expect(out.result).toBe("stopped");
    expect(t.pushes).toHaveLength(1);
    expect((await t.doc()).data).toMatchObject({ status: "failed", fix_attempts: 1 });
    // The unpushed fix moved to a branch of its own, so the next attempt starts from the PR's head.
    expect((await t.repo.git(["rev-parse", "HEAD"])).trim()).toBe(start);
    expect(await t.repo.git(["status", "--porcelain"])).toBe("");
    expect((await t.repo.git(["show", "otto/fix-7-attempt-1:fix.txt"])).trim()).toBe("fixed");
    expect((await t.doc()).log.join("\n")).toContain("kept on branch otto/fix-7-attempt-1");

    const last = await setup({ fixReply: "TASK_FAILED: no idea" });
    await last.store.update(KEY, (d) => ({ ...d, data: { ...d.data, status: "failed", fix_attempts: 2 } }));
    const gaveUp = await runFix(last.deps, { doc: await last.doc(), pr: pr(), pipeline, backend: last.backend, trigger: "watcher" });
    expect(gaveUp.result).toBe("gave_up");
    expect(last.pushes).toEqual([]);
    expect((await last.doc()).data).toMatchObject({ status: "failed", fix_attempts: 3, gave_up: "2026-03-01T12:00:00.000Z" });
    expect(last.notified.map((n) => n.kind)).toEqual(["pr_gave_up"]);
  });
  it("pr.verify unset: the checks found in the PR's tree run before and after the fix; one already failing and not worse does not block the push", async () => {
    const t = await setup();
    await t.repo.commit("Tests", {
      "package.json": JSON.stringify({ name: "r", scripts: { test: "node check.js" } }),
      "check.js": 'console.log("Tests  1 failed | 2 passed (3)");\nprocess.exit(1);\n',
    });
    const out = await runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
    expect(out.result).toBe("pushed");
    const checks = "npm test (detected: package.json scripts.test); baseline: npm test: exit 1 (pre-existing, 1 failure)";
    expect(out.lines).toContain(`Checks: ${checks}`);
    expect(out.lines.join("\n")).not.toContain("without local checks");
    expect((await t.doc()).log.join("\n")).toContain(`checks: ${checks}`);
    // The fix session was told the detected command.
    expect(t.prompts.find((p) => p.includes("npm test"))).toBeDefined();
  });

  it("pr.verify unset: a detected check that passed before the fix and fails after it blocks the push", async () => {
    const t = await setup();
    const check = 'if (require("node:fs").existsSync("fix.txt")) { console.error("fix.txt breaks the build"); process.exit(2); }\n';
    await t.repo.commit("Tests", { "package.json": JSON.stringify({ name: "r", scripts: { test: "node check.js" } }), "check.js": check });
    await runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
    expect(t.pushes).toEqual([]);
    const log = (await t.doc()).log.join("\n");
    expect(log).toContain("checks: npm test (detected: package.json scripts.test); baseline: npm test: passed");
    expect(log).toContain("fix attempt 1/3: pr.verify failed, nothing pushed: npm test: exit 2");
  });
  it("the review approves: the fix is pushed, and the summary and Fix History say who reviewed it", async () => {
    const t = await setup();
    const out = await runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
    expect(out.result).toBe("pushed");
    expect(t.pushes).toHaveLength(1);
    expect(out.lines[0]).toContain("reviewed by mock/m3: approved");
    // The review saw the failure summary and the uncommitted fix, fenced as data.
    const reviewPrompt = t.prompts.at(-1) ?? "";
    expect(reviewPrompt).toContain("code: broken");
    expect(reviewPrompt).toMatch(/<untrusted-[0-9a-f]+ label="fix diff">\n[\s\S]*\+fixed/);
    expect((await t.doc()).sections[0]?.body).toContain(
      "- **Result**: pushed to feature/x: Fix it (pushed without local checks: none found); reviewed by mock/m3: approved",
    );
  });

  it("the review rejects once: a fresh fix session is told the reasons, the second pass is reviewed again and pushed", async () => {
    const t = await setup({ reviews: [{ verdict: "REJECT", reasons: ["fix.txt: deleted the assertion instead of fixing add()"] }] });
    const out = await runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
    expect(out.result).toBe("pushed");
    expect(t.children.map((c) => `${c.agent}/${c.model}`)).toEqual([
      "otto-reviewer/m1",
      "otto-executor/m2",
      "otto-reviewer/m3",
      "otto-executor/m2",
      "otto-reviewer/m3",
    ]);
    expect(t.prompts[3]).toContain("deleted the assertion instead of fixing add()");
    expect(t.pushes).toHaveLength(1);
    expect((await t.doc()).data).toMatchObject({ status: "watching", fix_attempts: 1, fix_sha: "2222222bbbb" });
  });

  it("the review rejects twice: nothing is pushed, the attempt ends review_rejected with the reasons, and the next attempt runs", async () => {
    const reject: FixReview = { verdict: "REJECT", reasons: ["the test was skipped"] };
    const t = await setup({ reviews: [reject, reject, reject, reject, reject, reject] });
    const out = await runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
    expect(t.pushes).toEqual([]);
    expect(out.result).toBe("gave_up");
    const after = await t.doc();
    expect(after.data).toMatchObject({ status: "failed", fix_attempts: 3 });
    expect(after.log.join("\n")).toContain(
      "fix attempt 1/3: the review by mock/m3 rejected the fix twice, nothing pushed: the test was skipped",
    );
    expect(after.sections[0]?.body).toContain("### Attempt 2");
  });

  it("a review that fails (no valid envelope) pushes nothing and records the error", async () => {
    const t = await setup({ reviews: [new OttoError("json_invalid", "The model's reply had no valid JSON envelope after 2 retries.")] });
    const out = await runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
    expect(out.result).toBe("stopped");
    expect(t.pushes).toEqual([]);
    const after = await t.doc();
    expect(after.data).toMatchObject({ status: "failed", fix_attempts: 1 });
    expect(after.log.join("\n")).toContain("the review of the fix by mock/m3 failed, nothing pushed: ");
    expect(after.log.join("\n")).toContain("no valid JSON envelope");
  });

  describe("a fix is judged against the PR's own checks", () => {
    const TEST =
      'const { add } = require("./math.js");\nif (add(1, 2) !== 3) {\n  console.error("add(1, 2) is not 3");\n  process.exit(1);\n}\n';
    const project = {
      "package.json": JSON.stringify({ name: "r", scripts: { test: "node test.js" } }),
      "math.js": "exports.add = (a, b) => a - b;\n",
      "test.js": TEST,
    };
    const edit = (file: string, content: string) => (dir: string) => fs.writeFileSync(path.join(dir, file), content);

    it("a fix that takes process.exit(1) out of the test passes where it was made and is refused with the PR's test restored; nothing pushed", async () => {
      const t = await setup({ fix: edit("test.js", TEST.replace("  process.exit(1);\n", "")) });
      await t.repo.commit("Math", project);
      const out = await runFix(t.deps, { doc: await t.doc(), pr: pr(), pipeline, backend: t.backend, trigger: "manual" });
      expect(t.pushes).toEqual([]);
      expect(out.result).not.toBe("pushed");
      const history = (await t.doc()).sections.map((x) => x.body).join("\n");
      expect(history).toContain(
        "refused, nothing committed or pushed: the checks pass only with the fix's own changes to test.js: with the PR's versions of that file restored, `npm test` exit 1",
      );
      // The next session was told why, with the restored run's output.
      const told = t.prompts.filter((p) => p.includes("Otto ran the project's checks with the PR's own versions of test.js"));
      expect(told.length).toBeGreaterThan(0);
      expect(told[0]).toContain("add(1, 2) is not 3");
    });

    it("the control: a fix of the code is pushed; a test change the analysis named goes out and the commit says so", async () => {
      const honest = await setup({ fix: edit("math.js", "exports.add = (a, b) => a + b;\n") });
      await honest.repo.commit("Math", project);
      expect(
        (await runFix(honest.deps, { doc: await honest.doc(), pr: pr(), pipeline, backend: honest.backend, trigger: "manual" })).result,
      ).toBe("pushed");
      expect(honest.pushes[0]?.message).not.toContain("named as the cause");

      const named = await setup({
        fix: (dir) => {
          edit("math.js", "exports.add = (a, b) => a + b;\n")(dir);
          edit("test.js", `${TEST}console.log("add works");\n`)(dir);
        },
        summary: SUMMARY.replace("END_DOCUMENT", "## Cause files\n- `test.js`: asserts the old behaviour\nEND_DOCUMENT"),
      });
      await named.repo.commit("Math", project);
      const out = await runFix(named.deps, { doc: await named.doc(), pr: pr(), pipeline, backend: named.backend, trigger: "manual" });
      expect(out.result).toBe("pushed");
      expect(named.pushes[0]?.message).toContain("Changes tests or check configuration the failure analysis named as the cause: test.js.");
      expect((await named.doc()).sections.map((x) => x.body).join("\n")).toContain("named as the cause: test.js");
    });
  });
});
