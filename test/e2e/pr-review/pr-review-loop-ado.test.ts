import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { slashCommand, useE2E, type RecordedRequest, type Workspace } from "../../support/index.ts";
import type { FakeThread } from "../../support/fake-ado/state.ts";
import { useForges, type Forges } from "../pr/forges.ts";
import {
  BRANCH,
  LOOP_MARKER,
  envelope,
  finding,
  kindOf,
  loopModel,
  loopWorkspace,
  payloadIds,
  requestChanges,
  runLoop as runSharedLoop,
} from "../pr/loop-script.ts";

/*
 * /pr-review <url> --loop on Azure DevOps through real OpenCode: two scripted reviewer models, the
 * fake Azure DevOps, and a real clone whose origin names the ADO repository and reaches a bare
 * repository through url.insteadOf. Reports are threads; reviewer votes are the review state.
 */

// The fakes share a host, so the PR is named by its dev.azure.com URL (otto reaches the fake through base_url).
const PR_URL = "https://dev.azure.com/contoso/payments/_git/app/pullrequest/30";
/** PR 30 on the fake Azure DevOps and its branch in a clone whose origin is a bare repository. */
async function setup(e2e: ReturnType<typeof useE2E>, f: Forges, options: { verify?: string[] } = {}): Promise<Workspace> {
  f.ado.state.addPr({ id: 30, title: "Greet the world", branch: BRANCH });
  return loopWorkspace(e2e, f, `${f.ado.baseUrl}/contoso/payments/_git/app`, options);
}

/** Threads otto created on PR 30, in order. */
const ottoThreads = (f: Forges): FakeThread[] =>
  f.ado.state.threads.filter((t) => t.prId === 30 && t.comments[0]?.author.displayName === f.ado.state.me.displayName);
const bodies = (f: Forges): string[] => ottoThreads(f).map((t) => t.comments[0]?.content ?? "");

const runLoop = (e2e: ReturnType<typeof useE2E>, ws: Workspace) => runSharedLoop(e2e, ws, PR_URL);

describe("/pr-review --loop on Azure DevOps (real OpenCode, scripted reviewer models, fake ADO, real git)", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("approves in round 1: one closed report thread with the loop marker, no fix, nothing pushed", async () => {
    const f = await forges();
    const ws = await setup(e2e, f);
    const before = await ws.repo.remoteLog(BRANCH);
    e2e.model.script(
      ...slashCommand("otto_pr_review"),
      loopModel(ws.project, () => undefined),
    );
    const run = await runLoop(e2e, ws);

    expect(run.stdout).toContain("Final consensus: **approve**. Approved in round 1.");
    const threads = ottoThreads(f);
    expect(threads).toHaveLength(1);
    // A closed thread: an informational report must not hold up completion under the comment-resolution policy.
    expect(threads.map((t) => [t.status, t.filePath, t.comments.length])).toEqual([["closed", undefined, 1]]);
    const report = bodies(f)[0] ?? "";
    expect(report).toContain(LOOP_MARKER);
    expect(report).toContain("round 1/3, consensus **approve**");
    expect(report).toContain("| 0 | 0 | 0 | 0 |");
    // The link opens the PR page at the report's thread (the PR's web URL is under base_url, the fake's address).
    expect(run.stdout).toContain(
      `- review report: ${f.ado.baseUrl}/contoso/payments/_git/app/pullrequest/30?discussionId=${threads[0]?.id ?? "?"}`,
    );
    // The review state came from the PR's reviewers; otto never voted.
    expect(f.ado.calls.some((c) => c.method === "GET" && /\/pullRequests\/30\/reviewers$/i.test(c.path))).toBe(true);
    expect(f.ado.calls.filter((c) => c.method !== "GET" && !/\/threads$/i.test(c.path))).toEqual([]);
    const reviewers = e2e.model.turns().filter((r) => kindOf(r)?.kind === "reviewer");
    expect(reviewers.map((r) => [(kindOf(r) as { reviewer: string }).reviewer, r.model]).sort()).toEqual([
      ["reviewer-1", "m1"],
      ["reviewer-2", "m2"],
    ]);
    expect(e2e.model.turns().some((r) => kindOf(r)?.kind === "fix" || kindOf(r)?.kind === "comments")).toBe(false);
    expect(await ws.repo.remoteLog(BRANCH)).toEqual(before);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("P1 found → the fix session edits → pr.verify passes → otto pushes to the bare remote → round 2 approves", async () => {
    const f = await forges();
    const ws = await setup(e2e, f, { verify: ["grep -q 'hello, world' greet.txt"] });
    const before = await ws.repo.remoteLog(BRANCH);
    e2e.model.script(
      ...slashCommand("otto_pr_review"),
      loopModel(ws.project, (k) =>
        k.kind === "reviewer" && k.round === 1 && k.reviewer === "reviewer-1" ? requestChanges(finding("Misspelt greeting")) : undefined,
      ),
    );
    const run = await runLoop(e2e, ws);

    expect(run.stdout).toContain("Final consensus: **approve**. Approved in round 2.");
    expect(run.stdout).toMatch(/\| 1 \| request changes \| 0 \| 1 \| 0 \| 0 \| 2\/2 \| 1 fixed, 0 rejected, pushed [0-9a-f]{7} \|/);
    const log = await ws.repo.remoteLog(BRANCH);
    expect(log).toHaveLength(before.length + 1);
    expect(log[0]?.subject).toBe("fix: address review findings (otto review loop, round 1)");
    expect(log.slice(1)).toEqual(before);
    expect(await ws.repo.remoteFile("greet.txt", BRANCH)).toBe("hello, world\n");

    const reports = bodies(f);
    expect(reports).toHaveLength(3);
    for (const r of reports) expect(r).toContain(LOOP_MARKER);
    expect(reports[0]).toContain("consensus **request changes**");
    expect(reports[0]).toMatch(/### P1\n\n- \*\*QUAL-[0-9a-f]{8}\*\* `greet.txt:1`: Misspelt greeting \(reviewer-1\)/);
    expect(reports[1]).toContain("fixes of round 1");
    expect(reports[1]).toContain("Fixed: 1, rejected: 0.");
    expect(reports[1]).toContain("- ✅ `grep -q 'hello, world' greet.txt`");
    expect(reports[2]).toContain("round 2/3, consensus **approve**");
    expect(ottoThreads(f).every((t) => t.status === "closed" && t.filePath === undefined)).toBe(true);
    // Round 2 did not send otto's own report threads to the comments analyzer.
    expect(e2e.model.turns().some((r) => kindOf(r)?.kind === "comments")).toBe(false);
    const fixTurn = e2e.model.turns().find((r) => kindOf(r)?.kind === "fix");
    expect(payloadIds(fixTurn as RecordedRequest)).toEqual([expect.stringMatching(/^QUAL-[0-9a-f]{8}$/)]);
    expect(fs.readFileSync(path.join(ws.project, "greet.txt"), "utf8")).toBe("hello, world\n");
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("");
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a reviewer's vote of -10 (rejected) makes the consensus request_changes even when every model approves; +10 and 0 do not count", async () => {
    const f = await forges();
    const ws = await setup(e2e, f);
    const who = (name: string) => ({
      id: `id-${name}`,
      displayName: name,
      uniqueName: `${name.toLowerCase().replace(/\s+/g, ".")}@contoso.com`,
    });
    f.ado.state.votes.set(30, [
      { who: who("Lead Dev"), vote: -10 },
      { who: who("Happy Dev"), vote: 10 },
      { who: who("Quiet Dev"), vote: 0 },
    ]);
    e2e.model.script(
      ...slashCommand("otto_pr_review"),
      loopModel(ws.project, () => undefined),
    );
    const before = await ws.repo.remoteLog(BRANCH);
    const run = await runLoop(e2e, ws);

    expect(run.stdout).toContain("Final consensus: **request changes**");
    expect(run.stdout).toContain("manual intervention required");
    const reports = bodies(f);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain("consensus **request changes**");
    expect(reports[0]).toContain("Review state: changes requested by @lead.dev@contoso.com (vote -10: rejected).");
    expect(reports[0]).toContain(
      "**Next:** manual intervention required: changes requested by @lead.dev@contoso.com stand until withdrawn",
    );
    expect(reports[0]).not.toContain("happy.dev");
    expect(reports[0]).not.toContain("quiet.dev");
    expect(e2e.model.turns().some((r) => kindOf(r)?.kind === "fix")).toBe(false);
    expect(await ws.repo.remoteLog(BRANCH)).toEqual(before);
  });

  it("the comments analyzer gets active threads only: resolved ones and otto's own report threads do not count", async () => {
    const f = await forges();
    const ws = await setup(e2e, f);
    const pr = f.ado.state.pr(30);
    if (!pr) throw new Error("no PR");
    const open = f.ado.state.addThread(pr, { content: "This must say hello, world.", author: "Lead Dev", filePath: "/greet.txt", line: 1 });
    f.ado.state.addThread(pr, { content: "Old point.", author: "Lead Dev", status: "fixed" });
    f.ado.state.addThread(pr, { content: `${LOOP_MARKER}\nan earlier loop report`, author: f.ado.state.me.displayName, status: "active" });
    e2e.model.script(
      ...slashCommand("otto_pr_review"),
      loopModel(ws.project, (k) =>
        k.kind === "comments"
          ? envelope({
              threads: [
                { id: `${open.id}/1`, actionable: true, priority: "P1", title: "Say hello, world", suggestion: "Change the greeting." },
              ],
              fullReport: "One open request.",
            })
          : undefined,
      ),
    );
    const run = await runLoop(e2e, ws);

    const analyzer = e2e.model.turns().find((r) => kindOf(r)?.kind === "comments");
    expect(analyzer?.lastUser).toContain(`"id": "${open.id}/1"`);
    expect(analyzer?.lastUser).not.toContain("Old point.");
    expect(analyzer?.lastUser).not.toContain("earlier loop report");
    expect(run.stdout).toContain("manual intervention required: 1 unresolved review comment(s) need a reply or resolution");
    const report = bodies(f).at(-1) ?? "";
    expect(report).toContain(`- **THREAD-${open.id}/1** \`greet.txt:1\`: Say hello, world (Lead Dev)`);
    // Otto reports; it leaves the reviewer's thread to people.
    expect(open.status).toBe("active");
    expect(open.comments).toHaveLength(1);
    expect(e2e.model.turns().some((r) => kindOf(r)?.kind === "fix")).toBe(false);
  });
});
