import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { newDocument } from "../../../../src/pr/commands/add.ts";
import { runWorkflowSteps } from "../../../../src/pr/comments/workflow-steps.ts";
import { createAdoBackend } from "../../../../src/pr/ado/backend.ts";
import { createPrStore } from "../../../../src/pr/index.ts";
import { FAKE_ADO_PAT, startFakeAdo, type FakeAdo } from "../../../support/fake-ado/index.ts";
import { testConfig, testDeps } from "../support.ts";

/*
 * The Azure DevOps work item comment after a poll (fake Azure DevOps, real store): posted once when
 * create_work_item is on and work_item_comment is set; nothing posted, nothing recorded otherwise.
 */

const KEY = "ado-contoso-payments-app-7";

describe("runWorkflowSteps: the work item comment", () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  async function poll(ado: Record<string, unknown>) {
    const server: FakeAdo = await startFakeAdo();
    const data = fs.mkdtempSync(path.join(os.tmpdir(), "otto-workflow-"));
    cleanup.push(
      () => server.close(),
      () => fs.rmSync(data, { recursive: true, force: true }),
    );
    server.state.addPr({ id: 7, title: "Add auth", branch: "feature/auth" });
    const backend = createAdoBackend(
      testDeps(testConfig({ pr: { providers: { ado: { base_url: server.baseUrl, pat: FAKE_ADO_PAT, auto_complete: false, ...ado } } } })),
    );
    const pr = await backend.getPr({ provider: "ado", repo: "contoso/payments/app", number: 7 });
    const store = createPrStore(path.join(data, "prs"));
    const doc = { ...newDocument(pr, KEY, 3, "2026-03-01T10:00:00.000Z"), key: KEY };
    await store.create(doc);
    const done = await runWorkflowSteps(
      { store, now: () => new Date("2026-03-01T10:05:00Z"), secrets: [], log: () => undefined },
      { doc, pr, backend },
    );
    const posts = server.calls.filter((c) => c.method === "POST" && /\/threads$/i.test(c.path));
    return { done, posts, server, workflowDone: (await store.read(KEY))?.data.workflow_done };
  }

  it("posts work_item_comment once when create_work_item is on", async () => {
    const { done, posts, server, workflowDone } = await poll({ work_item_comment: "#workitem create" });
    expect(done).toEqual(["Posted the work item comment on PR 7."]);
    expect(posts).toHaveLength(1);
    expect(server.state.threads.at(-1)?.comments[0]?.content).toContain("#workitem create");
    expect(workflowDone).toEqual(["work_item"]);
  });

  it("create_work_item: false posts nothing, even with a comment configured", async () => {
    const { done, posts, workflowDone } = await poll({ create_work_item: false, work_item_comment: "#workitem create" });
    expect(done).toEqual([]);
    expect(posts).toEqual([]);
    expect(workflowDone).toEqual([]);
  });

  it("an unset work_item_comment posts nothing (otto does not guess the organization's convention)", async () => {
    const { done, posts, workflowDone } = await poll({});
    expect(done).toEqual([]);
    expect(posts).toEqual([]);
    expect(workflowDone).toEqual([]);
  });
});
