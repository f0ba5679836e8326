import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAdoBackend } from "../../../../src/pr/ado/backend.ts";
import { createGithubBackend } from "../../../../src/pr/github/backend.ts";
import type { PrBackend } from "../../../../src/pr/backend.ts";
import { createPrStore, listFlakes } from "../../../../src/pr/index.ts";
import { recordFlakes, type FlakeDeps } from "../../../../src/pr/fix/flake-record.ts";
import { flakeLedgerFile, readFlakeLedger } from "../../../../src/pr/store/flakes.ts";
import type { NotifyEvent } from "../../../../src/notify/index.ts";
import { BUILD_SERVICE_DEFAULTS, FAKE_ADO_PAT, startFakeAdo, type FakeAdo } from "../../../support/fake-ado/index.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub, type FakeGithub } from "../../../support/fake-github/index.ts";
import { testConfig, testDeps } from "../support.ts";

/*
 * pr.flakes.open_issue: when a flaky failure crosses notify_after, one GitHub issue or Azure DevOps
 * work item names it with its fingerprint lines and occurrences; its URL is kept in the ledger so a
 * later notice never opens a second one; a token without the scope gets a 403, which the
 * notification reports. Against the fake forges, which refuse the call as the real ones do.
 */

const SECRET = "hunter2-very-secret-value";
const DAY = 24 * 3600 * 1000;

describe("an issue or work item for a flaky failure", () => {
  let gh: FakeGithub | undefined;
  let ado: FakeAdo | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await gh?.close();
    await ado?.close();
    gh = ado = undefined;
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  function setup(backend: PrBackend | undefined, openIssue = true) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-flake-issue-"));
    dirs.push(dir);
    const notified: NotifyEvent[] = [];
    let now = new Date("2026-02-10T10:00:00.000Z");
    const deps: FlakeDeps = {
      storeDir: dir,
      config: testConfig({ pr: { flakes: { notify_after: 1, window: "1d", open_issue: openIssue } } }),
      notify: async (event) => {
        notified.push(event);
        return { delivered: [], failed: [] };
      },
      secrets: [SECRET],
      backend,
      now: () => now,
      log: () => {},
    };
    return { dir, deps, notified, later: () => (now = new Date(now.getTime() + 2 * DAY)) };
  }

  const check = { name: "unit", fingerprint: "fp1", lines: [`● login › times out (token ${SECRET})`], url: "https://ci.example/run/9" };

  it("GitHub: one issue with the failure lines and occurrences, secrets redacted; its URL in the ledger, never a second one", async () => {
    gh = await startFakeGithub({ installation: { bot: "github-actions[bot]", permissions: { issues: "write" } } });
    gh.state.addPr({ number: 3 });
    const backend = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    const t = setup(backend);
    const pr = {
      provider: "github" as const,
      repo: "octo/app",
      url: "https://github.com/octo/app/pull/3",
      id: "3",
      key: "github-octo-app-3",
      head: "b".repeat(40),
    };
    await recordFlakes(t.deps, pr, [check], "rerun");
    expect(gh.state.issues).toHaveLength(1);
    const issue = gh.state.issues[0]!;
    expect(issue.number).toBe(4);
    expect(issue.title).toContain("Flaky: ● login › times out");
    expect(issue.body).toContain("fingerprint `fp1`");
    expect(issue.body).toContain("[PR #3](https://github.com/octo/app/pull/3): `unit` on `bbbbbbb`");
    expect(issue.body).toContain("passed on the re-run");
    expect(issue.body).toContain("[the failed run](https://ci.example/run/9)");
    expect(`${issue.title}${issue.body}`).not.toContain(SECRET);
    const url = "https://github.com/octo/app/issues/4";
    expect(t.notified[0]?.text).toContain(`Opened ${url}.`);
    const file = flakeLedgerFile(t.dir, "github", "octo/app");
    expect((await readFlakeLedger(file)).flakes.fp1?.issue).toBe(url);
    expect(await listFlakes({ store: createPrStore(t.dir) })).toContain(`[issue](${url})`);

    // The next window's notice names the same issue and opens none.
    t.later();
    await recordFlakes(t.deps, { ...pr, head: "c".repeat(40) }, [check], "known");
    expect(t.notified).toHaveLength(2);
    expect(t.notified[1]?.text).toContain(`Its issue: ${url}.`);
    expect(gh.state.issues).toHaveLength(1);
    expect(gh.contractProblems).toEqual([]);
  });

  it("GitHub: a token without issues: write gets GitHub's 403, said in the notification, nothing thrown or recorded", async () => {
    gh = await startFakeGithub({ installation: { bot: "github-actions[bot]", permissions: { "pull-requests": "write" } } });
    gh.state.addPr({ number: 3 });
    const backend = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    const t = setup(backend);
    const pr = {
      provider: "github" as const,
      repo: "octo/app",
      url: "https://github.com/octo/app/pull/3",
      id: "3",
      key: "github-octo-app-3",
      head: "b".repeat(40),
    };
    await recordFlakes(t.deps, pr, [check], "rerun");
    expect(gh.state.issues).toEqual([]);
    expect(gh.calls.filter((c) => c.method === "POST" && c.path === "/repos/octo/app/issues").map((c) => c.status)).toEqual([403]);
    expect(t.notified[0]?.text).toMatch(/Could not open an issue \(pr\.flakes\.open_issue\): .*403/);
    expect(t.notified[0]?.text).toContain("The token needs issues: write on GitHub");
    expect((await readFlakeLedger(flakeLedgerFile(t.dir, "github", "octo/app"))).flakes.fp1?.issue).toBeUndefined();
  });

  it("off by default: the notification only", async () => {
    gh = await startFakeGithub();
    gh.state.addPr({ number: 3 });
    const backend = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    const t = setup(backend, false);
    const pr = {
      provider: "github" as const,
      repo: "octo/app",
      url: "https://github.com/octo/app/pull/3",
      id: "3",
      key: "github-octo-app-3",
      head: "b".repeat(40),
    };
    await recordFlakes(t.deps, pr, [check], "rerun");
    expect(t.notified).toHaveLength(1);
    expect(gh.state.issues).toEqual([]);
  });

  it("Azure DevOps: a Bug work item (JSON patch) when the build identity may edit work items; a 403 reported when it may not", async () => {
    ado = await startFakeAdo({
      identity: { scope: "project", project: "payments", permissions: [...BUILD_SERVICE_DEFAULTS, "WorkItemWrite"] },
    });
    ado.state.addPr({ id: 61 });
    const config = testConfig({ pr: { providers: { ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT } } } });
    const t = setup(createAdoBackend(testDeps(config)));
    const pr = {
      provider: "ado" as const,
      repo: "contoso/payments/app",
      url: "https://dev.azure.com/contoso/payments/_git/app/pullrequest/61",
      id: "61",
      key: "ado-contoso-payments-app-61",
      head: "b".repeat(40),
    };
    await recordFlakes(t.deps, pr, [check], "local");
    expect(ado.state.workItems).toHaveLength(1);
    const item = ado.state.workItems[0]!;
    expect(item.type).toBe("Bug");
    expect(item.fields["System.Title"]).toContain("Flaky: ● login › times out");
    expect(String(item.fields["Microsoft.VSTS.TCM.ReproSteps"])).toContain("passed in otto's sandbox");
    expect(JSON.stringify(item.fields)).not.toContain(SECRET);
    const url = `${ado.baseUrl}/contoso/${ado.state.project.id}/_workitems/edit/${item.id}`;
    expect(t.notified[0]?.text).toContain(`Opened ${url}.`);
    expect((await readFlakeLedger(flakeLedgerFile(t.dir, "ado", "contoso/payments/app"))).flakes.fp1?.issue).toBe(url);
    await ado.close();

    ado = await startFakeAdo({ identity: { scope: "project", project: "payments", permissions: BUILD_SERVICE_DEFAULTS } });
    ado.state.addPr({ id: 61 });
    const refused = setup(
      createAdoBackend(testDeps(testConfig({ pr: { providers: { ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT } } } }))),
    );
    await recordFlakes(refused.deps, pr, [check], "local");
    expect(ado.state.workItems).toEqual([]);
    expect(refused.notified[0]?.text).toMatch(/Could not open an issue .*403.*WorkItemWrite/);
  });
});
