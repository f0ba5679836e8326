import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { newDocument } from "../../../../src/pr/commands/add.ts";
import { runFix, type FixDeps } from "../../../../src/pr/fix/index.ts";
import { settleFlakeProbe } from "../../../../src/pr/fix/probe-green.ts";
import { addFlake, emptyLedger, flakeLedgerFile, readFlakeLedger, updateFlakeLedger } from "../../../../src/pr/store/flakes.ts";
import { fingerprintLog } from "../../../../src/pr/fix/fingerprint.ts";
import { flakesOf, seedLedger, type CiFlake } from "../../../../src/pr/ci/flake-state.ts";
import { trimLog } from "../../../../src/pr/fix/trim-log.ts";
import { createPrStore, type PipelineStatus, type PrBackend, type PrInfo, type WorkflowAction } from "../../../../src/pr/index.ts";
import type { BaseCheck } from "../../../../src/pr/backend.ts";
import type { NotifyEvent } from "../../../../src/notify/index.ts";
import type { SessionRunner } from "../../../../src/session/index.ts";
import { createRepo, gitEnv, type Repo } from "../../../support/git.ts";
import { testConfig } from "../support.ts";
import { fixPr } from "../fix/fix-pr.ts";

/*
 * Is it the PR's failure? runFix with real git, a real store and ledger, and fakes for the forge
 * and the models: inherited and flaky failures end before any model call, a failure that
 * reproduces in the sandbox goes to the analysis with what otto found, and pr.flakes.rerun's
 * re-run settles as a flake when the head goes green.
 */

const KEY = "github-o-r-7";
const HEAD = "1111111aaaa";
const MAIN = "9999999ffff";
const LOG =
  "##[group]Run npm test\nFAIL test/math.test.js\n  ● add › adds two numbers: expected 3, received -1\n##[error]Process completed with exit code 1.";
const pr = (over: Partial<PrInfo> = {}): PrInfo => fixPr({ headSha: HEAD, fork: false, ...over });
const pipeline: PipelineStatus = {
  state: "failure",
  headSha: HEAD,
  checks: [{ name: "unit", state: "failure", logId: "5", url: "https://ci/5" }],
};
const SUMMARY = "BEGIN_DOCUMENT\n# Pipeline Failure Summary\n\n## Verdict\ncode: broken\nEND_DOCUMENT";

describe("the fix flow tells flaky and inherited failures apart before any model call", () => {
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanup.splice(0)) c();
  });

  async function setup(options: { base?: BaseCheck; mainLog?: string; flakes?: Record<string, unknown>; testScript?: string } = {}) {
    const repo: Repo = await createRepo({ remote: true });
    const data = fs.mkdtempSync(path.join(os.tmpdir(), "otto-screen-"));
    cleanup.push(
      () => void repo.cleanup(),
      () => fs.rmSync(data, { recursive: true, force: true }),
    );
    await repo.git(["checkout", "-q", "-b", "feature/x"]);
    await repo.git(["remote", "set-url", "origin", "https://github.com/o/r"]);
    if (options.testScript)
      await repo.commit("Tests", {
        "package.json": JSON.stringify({ name: "r", scripts: { test: "node check.js" } }),
        "check.js": options.testScript,
      });
    const store = createPrStore(path.join(data, "prs"));
    await store.create({ ...newDocument(pr(), KEY, 3, "2026-03-01T10:00:00.000Z"), key: KEY });
    const prompts: string[] = [];
    const sessions = {
      runChild: async (_c: unknown, prompt: string) => {
        prompts.push(prompt);
        if (prompt.includes("Another engineer will fix it")) return { text: SUMMARY };
        fs.writeFileSync(path.join(repo.dir, "fix.txt"), "fixed\n");
        return { text: "Fix summary: Fix it" };
      },
      runChildJson: async (_c: unknown, prompt: string) => {
        prompts.push(prompt);
        return { value: { verdict: "APPROVE", reasons: ["sound"] }, text: "", rescued: false };
      },
    } as unknown as SessionRunner;
    const reruns: WorkflowAction[] = [];
    const backend = {
      getBuildLogs: async (_pr: PrInfo, id: string) => (id === "main" ? (options.mainLog ?? LOG) : LOG),
      baseCheck: async () => options.base,
      runWorkflow: async (_pr: PrInfo, action: WorkflowAction) => {
        reruns.push(action);
        return { done: true, message: "Re-ran the failed jobs of 1 workflow run(s)." };
      },
      postComment: async () => undefined,
    } as unknown as PrBackend;
    const notified: NotifyEvent[] = [];
    const deps: FixDeps = {
      store,
      config: testConfig({ models: { primary: "mock/m1" }, pr: { flakes: { notify_after: 2, ...options.flakes } } }),
      secrets: [],
      notify: async (event) => {
        notified.push(event);
        return { delivered: [], failed: [] };
      },
      sessions,
      env: gitEnv({ XDG_DATA_HOME: data }),
      cwd: repo.dir,
      models: async () => ({
        analysis: { providerID: "mock", modelID: "m1" },
        fix: { providerID: "mock", modelID: "m2" },
        review: { providerID: "mock", modelID: "m3" },
      }),
      now: () => new Date("2026-03-01T12:00:00.000Z"),
      log: () => undefined,
      push: async () => ({
        outcome: "pushed",
        sha: "2222222bbbb",
        committed: true,
        kept: [],
        ignored: [],
        rebased: false,
        detail: "pushed",
      }),
    };
    const doc = async () => (await store.read(KEY))!;
    const ledgerFile = flakeLedgerFile(store.dir, "github", "o/r");
    const run = async (trigger: "watcher" | "manual" = "watcher") =>
      runFix(deps, { doc: await doc(), pr: pr(), pipeline, backend, trigger });
    return { repo, store, deps, prompts, notified, reruns, doc, ledgerFile, run };
  }
  const history = (doc: { sections: Array<{ title: string; body: string }> }) =>
    doc.sections.find((s) => s.title === "Fix History")?.body ?? "";

  it("inherited: main's newest run fails the same way → no session, main is red in the document, one notification; quiet while main stays red", async () => {
    const t = await setup({
      base: { state: "failure", sha: MAIN, logId: "main" },
      mainLog: LOG.replace("expected 3, received -1", "expected 5, received -2"),
    });
    const out = await t.run();
    expect(out.result).toBe("inherited");
    expect(t.prompts).toEqual([]);
    expect(out.lines[0]).toContain("main is red: unit, since 9999999");
    const doc = await t.doc();
    expect(doc.data).toMatchObject({ status: "failed", inherited: { sha: HEAD, checks: [{ name: "unit", since: MAIN, base_sha: MAIN }] } });
    expect(history(doc)).toContain("### Inherited — ");
    expect(history(doc)).toContain(
      "main is red: unit, since 9999999: main fails the same way, so this is not the PR's failure; no fix session",
    );
    expect(t.notified.map((n) => n.title)).toEqual(["main is red in o/r: unit"]);
    const ledger = await readFlakeLedger(t.ledgerFile);
    expect(Object.values(ledger.red_main)).toMatchObject([{ check: "unit", since: MAIN, prs: [KEY] }]);

    // The watcher hands it back while main is red: nothing claimed, recorded or notified again.
    const before = (await t.doc()).log.length;
    expect((await t.run()).result).toBe("inherited");
    expect((await t.doc()).log.length).toBe(before);
    expect(t.notified).toHaveLength(1);
    expect(t.prompts).toEqual([]);
  });

  it("once main is green the PR is fixed normally, and the analysis hears main passes", async () => {
    const t = await setup({ base: { state: "success", sha: MAIN } });
    await t.store.update(KEY, (d) => ({
      ...d,
      data: {
        ...d.data,
        status: "failed",
        inherited: { sha: HEAD, checks: [{ name: "unit", fingerprint: "x", since: MAIN, base_sha: MAIN }] },
      },
    }));
    const out = await t.run("manual");
    expect(out.result).toBe("pushed");
    expect(t.prompts[0]).toContain("# What otto found before you");
    expect(t.prompts[0]).toContain("the default branch's newest run (9999999) passes");
    expect((await t.doc()).data.inherited).toBeUndefined();
  });

  it("a known flake: recognised from the ledger before any re-run; re-run once, recorded, and a notification once it recurs", async () => {
    const t = await setup();
    const fp = fingerprintLog(trimLog(LOG))!;
    await updateFlakeLedger(t.ledgerFile, () =>
      addFlake(emptyLedger(), fp.id, fp.lines, {
        pr: "github-o-r-3",
        number: 3,
        url: "https://github.com/o/r/pull/3",
        head: "3333333",
        check: "unit",
        at: "2026-02-28T10:00:00.000Z",
        verdict: "rerun",
      }),
    );
    const out = await t.run();
    expect(out.result).toBe("flaky");
    expect(t.prompts).toEqual([]);
    expect(t.reruns).toEqual(["rerun_failed"]);
    const doc = await t.doc();
    expect(doc.data).toMatchObject({ status: "watching", rerun_shas: [HEAD], fix_attempts: 0 });
    expect(history(doc)).toContain("### Flaky — ");
    expect(history(doc)).toContain(
      "unit: a known flaky failure (in the flake ledger 1 time(s)): recorded as a flake, no fix session, no model call",
    );
    const ledger = await readFlakeLedger(t.ledgerFile);
    expect(ledger.flakes[fp.id]?.occurrences.map((o) => [o.number, o.verdict, o.run_url])).toEqual([
      [3, "rerun", undefined],
      [7, "known", "https://ci/5"],
    ]);
    // notify_after 2: the second occurrence names the flaky test once.
    expect(t.notified.map((n) => n.title)).toEqual(["Flaky in o/r: FAIL test/math.test.js"]);
    expect(t.notified[0]?.text).toContain("PR #3 unit on 3333333 (rerun); PR #7 unit on 1111111 (known: https://ci/5)");
  });

  it("CI mode: the PR's verdicts from otto's state comment make a fresh job's ledger know the flake; the new verdict goes back to the state", async () => {
    const t = await setup();
    const fp = fingerprintLog(trimLog(LOG))!;
    // An earlier job on this PR judged it flaky (its re-run passed); this runner has no ledger of its own.
    const before: CiFlake[] = [{ fingerprint: fp.id, check: "unit", verdict: "rerun", head: "3333333", at: "2026-02-28T10:00:00.000Z" }];
    await updateFlakeLedger(t.ledgerFile, (l) => seedLedger(l, before, KEY, pr()));
    const out = await t.run();
    expect(out.result).toBe("flaky");
    expect(t.prompts).toEqual([]);
    const after = flakesOf(await readFlakeLedger(t.ledgerFile), KEY, before);
    expect(after.map((f) => [f.head, f.verdict, f.run_url])).toEqual([
      ["3333333", "rerun", undefined],
      [HEAD, "known", "https://ci/5"],
    ]);
  });

  it("passes in the sandbox when the CI check ran the same command: a flake, no session", async () => {
    const t = await setup({ testScript: "process.exit(0);\n" });
    const out = await t.run();
    expect(out.result).toBe("flaky");
    expect(out.lines[0]).toContain("unit: fails on the forge, but `npm test` passes in otto's sandbox on this head");
    expect(t.prompts).toEqual([]);
    expect(t.reruns).toEqual(["rerun_failed"]);
    expect(Object.values((await readFlakeLedger(t.ledgerFile)).flakes)[0]?.occurrences[0]?.verdict).toBe("local");
  });

  it("reproduced in the sandbox: fixed as today; the analysis is told, and the local run is the baseline (run once before the fix)", async () => {
    const t = await setup({ testScript: 'if (!require("node:fs").existsSync("fix.txt")) process.exit(1);\n', flakes: { rerun: true } });
    const out = await t.run();
    expect(out.result).toBe("pushed");
    expect(t.reruns).toEqual([]);
    expect(t.prompts[0]).toContain(
      "- unit: reproduced locally: `npm test` fails in otto's sandbox on the PR's head; first seen: not in the flake ledger",
    );
    const log = (await t.doc()).log.join("\n");
    expect(log).toContain("checks: npm test (detected: package.json scripts.test); baseline: npm test: exit 1");
    expect(log).toContain("the PR's own failure: unit: reproduced locally");
  });

  it("pr.flakes.rerun: nothing tells, so the failed jobs run again once; green on the same head records a flake", async () => {
    const t = await setup({ flakes: { rerun: true } });
    const out = await t.run();
    expect(out.result).toBe("rerun");
    expect(t.prompts).toEqual([]);
    expect(t.reruns).toEqual(["rerun_failed"]);
    const doc = await t.doc();
    expect(doc.data.flake_probe).toMatchObject({ sha: HEAD, checks: [{ name: "unit", url: "https://ci/5" }] });
    expect(history(doc)).toContain("unit not reproduced locally: re-ran the failed jobs of `1111111` to tell a flake");

    const settled = await settleFlakeProbe(
      {
        storeDir: t.store.dir,
        store: t.store,
        config: t.deps.config,
        secrets: [],
        notify: t.deps.notify,
        now: () => t.deps.now(),
        log: () => undefined,
      },
      doc,
      { state: "success", headSha: HEAD, checks: [{ name: "unit", state: "success" }] },
    );
    expect(settled).toBe(true);
    const after = await t.doc();
    expect(after.data.flake_probe).toBeUndefined();
    expect(history(after)).toContain("unit passed when otto re-ran the failed jobs of this commit: recorded as a flake, no fix session");
    expect(Object.values((await readFlakeLedger(t.ledgerFile)).flakes)[0]?.occurrences[0]).toMatchObject({ verdict: "rerun", head: HEAD });

    // Failing again on the same head instead: the analysis runs and hears it.
    const t2 = await setup({ flakes: { rerun: true } });
    await t2.store.update(KEY, (d) => ({ ...d, data: { ...d.data, rerun_shas: [HEAD] } }));
    expect((await t2.run()).result).toBe("pushed");
    expect(t2.prompts[0]).toContain("failed again after a re-run of the failed jobs on this commit");
  });
});
