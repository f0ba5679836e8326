import { execFile } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { AZURE_COMMENTS_FILE, planCiInit } from "../../../../src/pr/ci/init/index.ts";
import { startFakeAdo, type FakeAdo } from "../../../support/fake-ado/index.ts";

/*
 * The comment pipeline's first step, run as Azure runs a script step (bash -e -o pipefail) against
 * the fake Azure DevOps' connectionData and threads: it skips the rest of the job for otto's own
 * comments, for other repositories' comments and for comments that do not address otto, and for
 * nothing else.
 */

const comments = planCiInit({
  forge: "azure",
  pins: { otto: "0.1.0", opencode: "1.18.33" },
  models: { primary: "anthropic/claude-sonnet-4-5" },
  opencodeEnv: new Map(),
  workflows: [],
  checkSuites: false,
  jobs: ["Build"],
}).files.find((f) => f.path === AZURE_COMMENTS_FILE)!.text;
const steps = (parse(comments) as { jobs: Array<{ steps: Array<{ script?: string; condition?: string; env?: Record<string, string> }> }> })
  .jobs[0]!.steps;
const gate = steps[0]!;
const SKIP = "##vso[task.setvariable variable=OTTO_SKIP]true";
const TOKEN = "build-identity-token";
const REPO_ID = "1e2d3c4b-0000-4000-8000-00000000a11a";

describe("the Azure comment pipeline's gate", () => {
  const open: FakeAdo[] = [];
  afterEach(async () => {
    for (const f of open.splice(0)) await f.close();
  });

  async function run(payload: unknown, token = TOKEN, prepare?: (ado: FakeAdo) => void) {
    const ado = await startFakeAdo({ bearer: TOKEN });
    open.push(ado);
    prepare?.(ado);
    // Azure runs a script step with bash -e -o pipefail (https://learn.microsoft.com/azure/devops/pipelines/tasks/reference/bash-v3).
    // Asynchronous: the fake answers curl from this process.
    const result = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        "bash",
        ["--noprofile", "--norc", "-e", "-o", "pipefail", "-c", gate.script ?? ""],
        {
          encoding: "utf8",
          timeout: 20_000,
          env: {
            PATH: process.env.PATH,
            OTTO_EVENT_PAYLOAD: JSON.stringify(payload),
            SYSTEM_ACCESSTOKEN: token,
            SYSTEM_COLLECTIONURI: `${ado.baseUrl}/contoso/`,
            BUILD_REPOSITORY_ID: REPO_ID,
            SYSTEM_TEAMPROJECTID: ado.state.project.id,
          },
        },
        (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
    return { ...result, me: ado.state.me.id, calls: ado.calls.length };
  }
  const payload = (authorId: string, repoId?: string, content = "otto, why does add() live here?", thread = 1) => ({
    eventType: "ms.vss-code.git-pullrequest-comment-event",
    resource: {
      comment: { id: 1, content, author: { id: authorId }, _links: { threads: { href: `https://example.invalid/threads/${thread}` } } },
      pullRequest: { pullRequestId: 3, repository: { id: repoId ?? REPO_ID } },
    },
  });

  it("comes first, reads the payload and the token only, and every later step is skipped when it says so", () => {
    expect(gate.env && Object.keys(gate.env)).toEqual(["OTTO_EVENT_PAYLOAD", "SYSTEM_ACCESSTOKEN"]);
    for (const step of steps.slice(1)) expect(step.condition).toBe("and(succeeded(), ne(variables['OTTO_SKIP'], 'true'))");
    expect(steps.findIndex((s) => /npm install/.test(s.script ?? ""))).toBeGreaterThan(0);
  });

  it("a reviewer's comment on this repository goes on; otto's own and another repository's stop here", async () => {
    const reviewer = await run(payload("a6a6a6a6-0000-4000-8000-000000000001"));
    expect(reviewer.status, reviewer.stderr).toBe(0);
    expect(reviewer.stdout).not.toContain(SKIP);

    const fresh = await run(payload("placeholder"));
    const own = await run(payload(fresh.me.toUpperCase()));
    expect(own.status, own.stderr).toBe(0);
    expect(own.stdout).toContain("the comment is otto's own");
    expect(own.stdout).toContain(SKIP);

    const elsewhere = await run(payload("a6a6a6a6-0000-4000-8000-000000000001", "9f9f9f9f-0000-4000-8000-000000000002"));
    expect(elsewhere.stdout).toContain(SKIP);
    expect(elsewhere.calls).toBeLessThanOrEqual(1);
    const noRepo = await run({ resource: {} });
    expect(noRepo.stdout).toContain(SKIP);
  });

  it("a comment that does not address otto stops here, unless it is in a thread otto wrote in", async () => {
    const reviewer = "a6a6a6a6-0000-4000-8000-000000000001";
    let threadId = 0;
    const withThreads = (ado: FakeAdo) => {
      const pr = ado.state.addPr({ id: 3, title: "Add math", branch: "feature/3" });
      ado.state.addThread(pr, { content: "Why is this here?", author: "Alice" });
      threadId = ado.state.addThread(pr, { content: "otto's answer", author: ado.state.me.displayName }).id;
    };
    const plain = await run(payload(reviewer, undefined, "Why is this here?", 1), TOKEN, withThreads);
    expect(plain.stdout).toContain("does not address otto");
    expect(plain.stdout).toContain(SKIP);
    const named = await run(payload(reviewer, undefined, "@Otto please look again", 1), TOKEN, withThreads);
    expect(named.stdout).not.toContain(SKIP);
    // A word that only contains otto is not a name: "lotto", "otto_bot" in code.
    const inside = await run(payload(reviewer, undefined, "the lotto numbers", 1), TOKEN, withThreads);
    expect(inside.stdout).toContain(SKIP);
    const reply = await run(payload(reviewer, undefined, "Why is this here?", threadId), TOKEN, withThreads);
    expect(threadId).toBeGreaterThan(0);
    expect(reply.stdout, reply.stderr).not.toContain(SKIP);
  });

  it("when Azure cannot name the identity the job goes on (otto checks again); a payload cannot print a logging command", async () => {
    const probe = await run(payload("x"));
    const refused = await run(payload(probe.me), "wrong-token");
    expect(refused.status, refused.stderr).toBe(0);
    expect(refused.stdout).not.toContain(SKIP);
    const injected = await run(
      payload(`x\n##vso[task.setvariable variable=SYSTEM_ACCESSTOKEN]stolen`, `y\n##vso[task.complete result=Failed]`),
    );
    expect(injected.stdout).not.toContain("stolen");
    expect(injected.stdout.split("\n").filter((l) => l.startsWith("##vso"))).toEqual([SKIP]);
  });
});
