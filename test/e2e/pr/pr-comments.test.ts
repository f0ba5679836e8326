import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { replyBody } from "../../../src/pr/comments/index.ts";
import { stripPostMarkers } from "../../../src/pr/post-once.ts";
import {
  assertPluginLoaded,
  slashCommand,
  text,
  toolCall,
  useE2E,
  type E2E,
  type ScriptEntry,
  type Workspace,
  until,
} from "../../support/index.ts";
import { ottoPr, useForges, type Forges } from "../pr/forges.ts";

/*
 * The comment flow end to end: real OpenCode running otto, the scripted model answering in child
 * sessions (editing files through OpenCode's write tool), fake GitHub / Azure DevOps recording what
 * otto posts, and real git pushing to a bare remote that stands in for the forge's repository.
 */

const PLANTED = "ghp_plantedSecretToken0123456789abcdefXYZ";
const CALC = "export function total(price: number): number {\n  return price * 1.19;\n}\n";
const FIXED = "const VAT = 1.19;\n\nexport function total(price: number): number {\n  return price * VAT;\n}\n";

const prsDir = (ws: Workspace) => path.join(ws.dirs.dataHome, "otto", "prs");
const readDoc = (ws: Workspace, key: string) => fs.readFileSync(path.join(prsDir(ws), `${key}.md`), "utf8");

/**
 * The project on the PR's branch with its files pushed, and `origin` spelt as the forge's URL
 * (what otto matches the PR against), rewritten by git to the bare remote for fetch and push.
 */
async function checkoutPrBranch(ws: Workspace, repoUrl: string, branch: string): Promise<void> {
  await ws.repo.git(["checkout", "-q", "-b", branch]);
  await ws.repo.commit("Add total", { "src/calc.ts": CALC });
  await ws.repo.git(["push", "-q", "-u", "origin", branch]);
  await ws.repo.git(["config", `url.${ws.repo.remote}.insteadOf`, repoUrl]);
  await ws.repo.git(["remote", "set-url", "origin", repoUrl]);
}

const envelope = (decision: string, reply: string, fix = "") =>
  `Done.\n\nBEGIN_JSON\n${JSON.stringify({ decision, reply, fix_description: fix })}\nEND_JSON`;

/**
 * A comment session, recognised by the comment's text in its prompt: optionally one edit (through
 * the bash tool: OpenCode's write tool refuses to overwrite a file the session has not read), then the envelope.
 */
function answer(commentText: string, final: string, edit?: { file: string; content: string }): ScriptEntry[] {
  if (!edit) return [{ label: `answer '${commentText}'`, match: { lastUser: commentText, lastRole: "user" }, reply: text(final) }];
  const command = `cat > ${edit.file} <<'OTTO_EOF'\n${edit.content}OTTO_EOF`;
  return [
    {
      label: `edit for '${commentText}'`,
      match: { lastUser: commentText, lastRole: "user" },
      reply: toolCall("bash", { command, description: "Apply the fix" }),
    },
    { label: `answer '${commentText}'`, match: { lastUser: commentText, lastRole: "tool" }, reply: text(final) },
  ];
}

function ottoPrScript(e2e: E2E): void {
  const [call, echo] = slashCommand("otto_pr");
  e2e.model.script({ ...call!, times: Infinity }, { ...echo!, times: Infinity });
}

const bodiesOf = (calls: Forges["gh"]["calls"]) => calls.filter((c) => c.method !== "GET").map((c) => JSON.stringify(c.body ?? ""));

describe("answering reviewer comments on tracked PRs (real OpenCode, fake forges, real git)", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("GitHub: AGREE fixes, commits, pushes, replies 'Fixed in <sha>' and resolves; BY_DESIGN and WONT_FIX reply; own, bot and already-answered comments are not answered; secrets never posted", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add totals", branch: "feature/1" });
    pr.body = "Totals for the invoice page, VAT included.";
    f.gh.state.setChecks(pr, [{ name: "build", status: "in_progress" }]);
    const ws = await e2e.workspace({ remote: true, userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1" } }), env: f.env });
    await checkoutPrBranch(ws, "https://github.com/octo/app", "feature/1");
    const before = (await ws.repo.remoteLog("feature/1"))[0]?.sha;

    const agree = f.gh.state.addReviewComment(pr, { path: "src/calc.ts", line: 2, body: "Name the magic number 1.19." });
    const byDesign = f.gh.state.addComment(pr, "Why is there no cache for totals?", "alice");
    const wontFix = f.gh.state.addReviewComment(pr, { path: "src/calc.ts", line: 1, body: "Rewrite this module in Rust." });
    // Not for otto: the token's own user (otto-bot here) and a bot.
    f.gh.state.addComment(pr, "Note to self: check the rounding.", "otto-bot");
    f.gh.state.addComment(pr, "Coverage: 80%", "codecov[bot]");
    // Answered by an otto that crashed before recording it: the marked reply is on the PR, the document knows nothing.
    const crashed = f.gh.state.addReviewComment(pr, { path: "src/calc.ts", line: 3, body: "Add a doc comment." });
    f.gh.state.addReviewComment(pr, {
      path: "src/calc.ts",
      line: 3,
      body: replyBody(`review-${crashed.id}`, "WONT_FIX", "Docs come with the next PR."),
      author: "otto-bot",
      inReplyTo: crashed.id,
    });

    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script(
      ...answer("Name the magic number 1.19.", envelope("AGREE", "The rate is now the named constant `VAT`.", "Name the VAT rate"), {
        file: path.join(ws.project, "src/calc.ts"),
        content: FIXED,
      }),
      ...answer(
        "Why is there no cache for totals?",
        envelope("BY_DESIGN", "A total is one multiplication; a cache would cost more than it saves."),
      ),
      ...answer("Rewrite this module in Rust.", envelope("WONT_FIX", `Out of scope for this PR. (debug: token ${PLANTED})`)),
    );
    ottoPrScript(e2e);
    expect(await ottoPr(client, "add https://github.com/octo/app/pull/1")).toContain("Tracking PR");

    const out = await ottoPr(client, "comments");
    expect(out).toContain("3 answered, 1 recorded from an earlier run, 0 failed, 2 not for otto.");
    // The AGREE session saw what the PR is for and the commented line among its neighbours, numbered.
    const asked = e2e.model.turns().find((r) => r.lastRole === "user" && r.lastUser.includes("Name the magic number 1.19."));
    expect(asked?.lastUser).toContain("Totals for the invoice page, VAT included.");
    expect(asked?.lastUser).toContain(
      "src/calc.ts\n  1 | export function total(price: number): number {\n> 2 |   return price * 1.19;\n  3 | }",
    );
    expect(out).toMatch(/\| review-\d+ \| reviewer \| src\/calc.ts:2 \| AGREE \| Fixed in [0-9a-f]{7}; thread resolved \|/);

    // The fix is on the PR's branch in the remote: a fast-forward on top of the old head.
    const remote = await ws.repo.remoteLog("feature/1");
    expect(remote[1]?.sha).toBe(before);
    expect(remote[0]?.subject).toBe("Name the VAT rate");
    expect(await ws.repo.remoteFile("src/calc.ts", "feature/1")).toBe(FIXED);
    const sha = remote[0]?.sha ?? "";

    const replies = f.gh.state.reviewComments.filter((c) => c.in_reply_to_id !== undefined && c.user.login === "otto-bot");
    // Each post ends with its own post marker (src/pr/post-once.ts): compared without it.
    const replyTo = (id: number) => replies.filter((r) => r.in_reply_to_id === id).map((r) => stripPostMarkers(r.body));
    expect(replyTo(agree.id)).toEqual([
      `<!-- otto -->\n<!-- otto:reply:review-${agree.id}:AGREE -->\nFixed in ${sha.slice(0, 7)}: The rate is now the named constant \`VAT\`.`,
    ]);
    expect(replyTo(wontFix.id)).toHaveLength(1);
    expect(replyTo(wontFix.id)[0]).toContain("Out of scope for this PR.");
    // Only the reply posted before the crash: not answered twice.
    expect(replyTo(crashed.id)).toHaveLength(1);
    const conversation = f.gh.state.comments.filter((c) => c.user.login === "otto-bot" && c.body.includes("<!-- otto -->"));
    expect(conversation.map((c) => stripPostMarkers(c.body))).toEqual([
      `> @alice wrote:\n> Why is there no cache for totals?\n\n<!-- otto -->\n<!-- otto:reply:issue-${byDesign.id}:BY_DESIGN -->\nA total is one multiplication; a cache would cost more than it saves.`,
    ]);
    // Threads resolved: the answered ones and the recovered one (its crash may have come before resolving).
    for (const c of [agree, wontFix, crashed]) expect(f.gh.state.threads.get(c.thread)?.resolved, c.body).toBe(true);
    expect(
      f.gh.calls.filter((c) => c.path.endsWith("graphql") && JSON.stringify(c.body).includes("resolveReviewThread")).length,
    ).toBeGreaterThanOrEqual(3);

    // The planted token never reached GitHub, in any request.
    for (const body of bodiesOf(f.gh.calls)) expect(body).not.toContain(PLANTED);
    expect(replyTo(wontFix.id)[0]).toContain("[REDACTED");

    const doc = readDoc(ws, "github-octo-app-1");
    for (const id of [`review-${agree.id}`, `issue-${byDesign.id}`, `review-${wontFix.id}`, `review-${crashed.id}`])
      expect(doc).toContain(`  - ${id}\n`);
    expect(doc).toContain("## Comment History");
    expect(doc).toContain(`### Comment review-${agree.id} — @reviewer`);
    expect(doc).toContain(`- **Action**: Fixed in ${sha.slice(0, 7)}; thread resolved`);
    expect(doc).toContain(`- **Decision**: BY_DESIGN`);
    expect(doc).toMatch(/Answered in an earlier run \(its reply is on the PR\); recorded now, not answered again/);
    expect(doc).not.toContain(PLANTED);
    expect(doc).toMatch(/\nunseen_comments: 0\n/);
    expect(await ottoPr(client, "log")).toContain(`### Comment review-${agree.id} — @reviewer`);

    // Idempotent: a second pass answers nothing and writes nothing.
    const writes = () =>
      f.gh.calls.filter((c) => c.method !== "GET" && !(c.path.endsWith("graphql") && !JSON.stringify(c.body).includes("mutation"))).length;
    const written = writes();
    expect(await ottoPr(client, "comments")).toContain("No new reviewer comments to answer.");
    expect(writes()).toBe(written);
    expect(e2e.model.pending().filter((p) => !p.label?.startsWith("otto_pr"))).toEqual([]);
    expect(e2e.model.unmatched()).toEqual([]);
    // Sessions deleted after use: only the command sessions remain.
    const sessions = (await client.session.list({ throwOnError: true })).data;
    expect(sessions.filter((s) => s.title.startsWith("otto: PR #1 comment"))).toEqual([]);
  });

  it("AGREE with no change: resolved as already addressed only with a named commit on the PR's branch; otherwise otto says so and leaves the thread open", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 3, branch: "feature/3" });
    f.gh.state.setChecks(pr, [{ name: "build", status: "in_progress" }]);
    // With the pauses GitHub.com asks for between writes (the default; the other tests turn them off).
    const config = f.ottoConfig({ models: { primary: "mock/m1" } }) as { pr: { providers: { github: Record<string, unknown> } } };
    delete config.pr.providers.github.pause_writes;
    const ws = await e2e.workspace({ remote: true, userOttoConfig: config, env: f.env });
    await checkoutPrBranch(ws, "https://github.com/octo/app", "feature/3");
    const added = (await ws.repo.remoteLog("feature/3"))[0]?.sha ?? "";
    const shown = f.gh.state.addReviewComment(pr, { path: "src/calc.ts", line: 2, body: "Return the total." });
    const claimed = f.gh.state.addReviewComment(pr, { path: "src/calc.ts", line: 1, body: "Type the price." });
    const { client } = await e2e.serve(ws);
    const agreed = (reply: string, addressedBy?: string) =>
      `BEGIN_JSON\n${JSON.stringify({ decision: "AGREE", reply, fix_description: "", ...(addressedBy ? { addressed_by: addressedBy } : {}) })}\nEND_JSON`;
    e2e.model.script(
      ...answer("Return the total.", agreed("`total` returns it on line 2.", added.slice(0, 7))),
      ...answer("Type the price.", agreed("The price is typed already.")),
    );
    ottoPrScript(e2e);
    await ottoPr(client, "add https://github.com/octo/app/pull/3");

    const out = await ottoPr(client, "comments");
    expect(out).toContain("2 answered");
    // Nothing pushed.
    expect((await ws.repo.remoteLog("feature/3"))[0]?.sha).toBe(added);
    const replies = f.gh.state.reviewComments.filter((c) => c.in_reply_to_id !== undefined && c.user.login === "otto-bot");
    const replyTo = (id: number) => replies.filter((r) => r.in_reply_to_id === id).map((r) => stripPostMarkers(r.body));
    expect(replyTo(shown.id)).toEqual([
      `<!-- otto -->\n<!-- otto:reply:review-${shown.id}:AGREE -->\nAlready addressed in ${added.slice(0, 7)}: \`total\` returns it on line 2.`,
    ]);
    expect(replyTo(claimed.id)).toEqual([
      `<!-- otto -->\n<!-- otto:reply:review-${claimed.id}:AGREE -->\notto agrees but made no change and found no commit that addresses this; leaving it open for a person.\n\nThe price is typed already.`,
    ]);
    expect(f.gh.state.threads.get(shown.thread)?.resolved).toBe(true);
    expect(f.gh.state.threads.get(claimed.thread)?.resolved).toBe(false);
    // Replies notify people: three seconds apart (as sent; arrivals may differ by the connections' jitter).
    const posts = f.gh.calls.filter((c) => c.method === "POST" && /\/comments\/\d+\/replies$/.test(c.path));
    expect(posts).toHaveLength(2);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(2_500);
    const doc = readDoc(ws, "github-octo-app-3");
    expect(doc).toContain(`- **Action**: Agreed; no change made, already addressed in ${added.slice(0, 7)} on feature/3; thread resolved`);
    expect(doc).toContain(
      "- **Action**: Agreed but no change made and no commit named that addresses it; reply posted, thread left open for a person",
    );
    // Answered: the open thread is not taken up again, nor resolved by a later pass.
    expect(await ottoPr(client, "comments")).toContain("No new reviewer comments to answer.");
    expect(f.gh.state.threads.get(claimed.thread)?.resolved).toBe(false);
    expect(e2e.model.unmatched()).toEqual([]);
  });

  it("a comment the model cannot answer, or whose fix fails pr.verify, is retried once, then recorded, left unanswered and handed to a human", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 2, branch: "feature/2" });
    f.gh.state.setChecks(pr, [{ name: "build", status: "in_progress" }]);
    const config = f.ottoConfig({ models: { primary: "mock/m1" } }) as { pr: Record<string, unknown> };
    config.pr.verify = ["! grep -q BROKEN src/calc.ts"];
    const ws = await e2e.workspace({ remote: true, userOttoConfig: config, env: f.env });
    await checkoutPrBranch(ws, "https://github.com/octo/app", "feature/2");
    const comment = f.gh.state.addReviewComment(pr, { path: "src/calc.ts", line: 2, body: "Explain the rounding." });
    const broken = f.gh.state.addReviewComment(pr, { path: "src/calc.ts", line: 1, body: "Inline the rate." });
    const { client } = await e2e.serve(ws);
    // Never an envelope: the first prompt and both json-retry prompts of each pass.
    e2e.model.script({
      label: "no envelope",
      match: { anyText: "Explain the rounding." },
      reply: text("I would rather not say."),
      times: Infinity,
    });
    // A fix that breaks what pr.verify checks, in both passes.
    for (let pass = 0; pass < 2; pass++) {
      e2e.model.script(
        ...answer("Inline the rate.", envelope("AGREE", "Inlined.", "Inline the rate"), {
          file: path.join(ws.project, "src/calc.ts"),
          content: "BROKEN\n",
        }),
      );
    }
    ottoPrScript(e2e);
    await ottoPr(client, "add https://github.com/octo/app/pull/2");

    const first = await ottoPr(client, "comments");
    expect(first).toContain("0 answered, 0 recorded from an earlier run, 2 failed");
    expect(first).toMatch(/Failed \(attempt 1 of 2, retried next cycle\): The model \(mock\/m1/);
    expect(first).toContain("Failed (attempt 1 of 2, retried next cycle): pr.verify failed on the fix for review-");
    // The broken edit was discarded: the tree is clean for the next answer.
    expect(await ws.repo.git(["status", "--porcelain"])).toBe("");
    expect(fs.readFileSync(path.join(ws.project, "src/calc.ts"), "utf8")).toBe(CALC);
    const failures = readDoc(ws, "github-octo-app-2");
    expect(failures).toContain(`comment_failures:\n  review-${comment.id}: 1\n  review-${broken.id}: 1\n`);
    expect(await ottoPr(client, "comments")).toContain("Failed 2 times, gave up (a human should answer)");
    const doc = readDoc(ws, "github-octo-app-2");
    expect(doc).toContain(`seen_comment_ids:\n  - review-${comment.id}\n  - review-${broken.id}\n`);
    expect(doc).toContain("comment_failures: {}");
    // Nothing posted, nothing pushed; a human was asked.
    expect(f.gh.state.reviewComments).toHaveLength(2);
    expect(f.gh.state.threads.get(comment.thread)?.resolved).toBe(false);
    expect((await ws.repo.remoteLog("feature/2")).map((c) => c.subject)).toEqual(["Add total", "Initial commit"]);
    const hook = await until("the human_needed webhook", () => f.hooks.calls.find((c) => JSON.stringify(c.body).includes("human_needed")));
    expect(hook.body).toMatchObject({ event: "human_needed", url: expect.stringContaining(`#discussion_r${comment.id}`) as unknown });
    expect(await ottoPr(client, "comments")).toContain("No new reviewer comments to answer.");
    expect(e2e.model.turns().filter((t) => t.answeredBy === "no envelope")).toHaveLength(6);
  });

  it("Azure DevOps, from the watcher: thread statuses fixed / byDesign / wontFix, MerlinBot ignored when off and answered when on, auto-complete and the work item comment once", async () => {
    const f = await forges();
    const pr = f.ado.state.addPr({ id: 30, title: "Add totals", branch: "feature/30" });
    f.ado.state.setChecks(pr, [{ name: "ci", status: "inProgress" }]);
    const config = (merlinbot: boolean) => {
      const base = f.ottoConfig({ models: { primary: "mock/m1" } }) as { pr: { providers: { ado: Record<string, unknown> } } };
      // The review bot is known by its identity id (a display name is anyone's to pick).
      base.pr.providers.ado = {
        ...base.pr.providers.ado,
        merlinbot,
        bot_ids: [f.ado.state.identity("MerlinBot").id],
        work_item_comment: "#workitem create",
      };
      return base;
    };
    const ws = await e2e.workspace({ remote: true, userOttoConfig: config(false), env: f.env });
    await checkoutPrBranch(ws, `${f.ado.baseUrl}/contoso/payments/_git/app`, "feature/30");
    const before = (await ws.repo.remoteLog("feature/30"))[0]?.sha;

    const agree = f.ado.state.addThread(pr, { content: "Name the magic number 1.19.", filePath: "/src/calc.ts", line: 2 });
    const byDesign = f.ado.state.addThread(pr, { content: "Why is there no cache for totals?", author: "Alice" });
    const wontFix = f.ado.state.addThread(pr, { content: "Rewrite this module in Rust.", filePath: "/src/calc.ts", line: 1 });
    const merlinOff = f.ado.state.addThread(pr, { content: "MerlinBot: add a CODEOWNERS entry for src/.", author: "MerlinBot" });
    const crashed = f.ado.state.addThread(pr, { content: "Add a doc comment.", filePath: "/src/calc.ts", line: 3 });
    f.ado.state.reply(crashed, replyBody(`${crashed.id}/1`, "WONT_FIX", "Docs come with the next PR."), f.ado.state.me.displayName, 1);

    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script(
      ...answer("Name the magic number 1.19.", envelope("AGREE", "The rate is now the named constant `VAT`.", "Name the VAT rate"), {
        file: path.join(ws.project, "src/calc.ts"),
        content: FIXED,
      }),
      ...answer("Why is there no cache for totals?", envelope("BY_DESIGN", "A total is one multiplication.")),
      ...answer("Rewrite this module in Rust.", envelope("WONT_FIX", `Out of scope here. ${PLANTED}`)),
      ...answer("MerlinBot: the PR description is empty.", envelope("BY_DESIGN", "The linked work item carries the description.")),
    );
    ottoPrScript(e2e);
    expect(await ottoPr(client, "add https://dev.azure.com/contoso/payments/_git/app/pullrequest/30")).toContain(
      "Auto-complete set on PR 30.",
    );

    expect(await ottoPr(client, "watch once")).toMatch(/1 PR\(s\) in [\d.]+ s, 0 error\(s\)/);
    const status = (t: { id: number }) => f.ado.state.threads.find((x) => x.id === t.id)?.status;
    const ottoReplies = (t: { id: number }) =>
      (f.ado.state.threads.find((x) => x.id === t.id)?.comments ?? [])
        .filter((c) => c.author.displayName === "Otto Bot")
        .map((c) => stripPostMarkers(c.content));
    expect([status(agree), status(byDesign), status(wontFix), status(merlinOff), status(crashed)]).toEqual([
      "fixed",
      "byDesign",
      "wontFix",
      "active",
      "wontFix",
    ]);
    const remote = await ws.repo.remoteLog("feature/30");
    expect(remote[1]?.sha).toBe(before);
    expect(await ws.repo.remoteFile("src/calc.ts", "feature/30")).toBe(FIXED);
    expect(ottoReplies(agree)).toEqual([
      `<!-- otto -->\n<!-- otto:reply:${agree.id}/1:AGREE -->\nFixed in ${(remote[0]?.sha ?? "").slice(0, 7)}: The rate is now the named constant \`VAT\`.`,
    ]);
    expect(ottoReplies(byDesign)).toHaveLength(1);
    expect(ottoReplies(wontFix)[0]).toContain("Out of scope here.");
    expect(ottoReplies(merlinOff)).toEqual([]);
    // Only the reply from before the crash.
    expect(ottoReplies(crashed)).toHaveLength(1);
    for (const call of f.ado.calls.filter((c) => c.method !== "GET")) expect(JSON.stringify(call.body ?? "")).not.toContain(PLANTED);

    // Auto-complete: set once (at add); the cycle sees it set and records it. The work item comment: posted once, closed.
    const patches = () => f.ado.calls.filter((c) => c.method === "PATCH" && /\/pullrequests\/30$/i.test(c.path)).length;
    expect(patches()).toBe(1);
    const workItem = () => f.ado.state.threads.filter((t) => t.comments[0]?.content.startsWith("#workitem create"));
    expect(workItem().map((t) => t.status)).toEqual(["closed"]);
    let doc = readDoc(ws, "ado-contoso-30");
    expect(doc).toMatch(/\nworkflow_done:\n {2}- auto_complete\n {2}- work_item\n/);
    expect(doc).toContain(`### Comment ${agree.id}/1 — @Reviewer`);
    expect(doc).toContain(`  - ${merlinOff.id}/1\n`);

    // MerlinBot switched on: its new thread is answered like a reviewer's; the one seen while it was off stays as it is.
    ws.writeOttoConfig(config(true), "user");
    const merlinOn = f.ado.state.addThread(pr, { content: "MerlinBot: the PR description is empty.", author: "MerlinBot" });
    expect(await ottoPr(client, "watch once")).toMatch(/0 error\(s\)/);
    expect(status(merlinOn)).toBe("byDesign");
    expect(ottoReplies(merlinOn)[0]).toContain("The linked work item carries the description.");
    expect(ottoReplies(merlinOff)).toEqual([]);
    expect(patches()).toBe(1);
    expect(workItem()).toHaveLength(1);
    doc = readDoc(ws, "ado-contoso-30");
    expect(doc).toContain(`### Comment ${merlinOn.id}/1 — @MerlinBot`);
    expect(e2e.model.pending().filter((p) => !p.label?.startsWith("otto_pr"))).toEqual([]);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
