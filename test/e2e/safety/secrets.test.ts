import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, slashCommand, text, useE2E, type Workspace } from "../../support/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";
import { REQUIREMENTS } from "../spec/fixtures.ts";
import { doc, specModel } from "../spec/spec-model.ts";

/*
 * Secrets in model output never reach what otto posts or commits: a reply to a reviewer carrying a
 * JWT and a user:pass URL reaches the fake GitHub redacted, and a spec stage whose model writes a
 * configured (short, format-less) secret leaves no trace of it in the spec files or their history.
 */

const JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJvdHRvLXRlc3QiLCJpYXQiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLW9mLXRoZS10ZXN0LXRva2Vu";
const URL_PASSWORD = "s3cr3tPassw0rd";
const SHORT = "zq9!";

describe("secrets stay out of what otto posts and writes (real OpenCode)", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("a reply to a reviewer with a JWT and a user:pass URL reaches GitHub redacted, host kept", async () => {
    const f = await forges();
    const pr = f.gh.state.addPr({ number: 1, title: "Add totals", branch: "feature/1" });
    f.gh.state.setChecks(pr, [{ name: "build", status: "in_progress" }]);
    const ws = await e2e.workspace({ remote: true, userOttoConfig: f.ottoConfig({ models: { primary: "mock/m1" } }), env: f.env });
    await checkoutPrBranch(ws, "https://github.com/octo/app", "feature/1");
    const question = f.gh.state.addComment(pr, "How does the deploy job authenticate?", "alice");

    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    const reply = `It uses the token ${JWT} against https://deploy:${URL_PASSWORD}@git.example.com/org/app.git, by design.`;
    e2e.model.script({
      label: "answer",
      match: { lastUser: "How does the deploy job authenticate?", lastRole: "user" },
      reply: text(`Done.\n\nBEGIN_JSON\n${JSON.stringify({ decision: "BY_DESIGN", reply, fix_description: "" })}\nEND_JSON`),
    });
    const [call, echo] = slashCommand("otto_pr");
    e2e.model.script({ ...call!, times: Infinity }, { ...echo!, times: Infinity });
    expect(await ottoPr(client, "add https://github.com/octo/app/pull/1")).toContain("Tracking PR");
    expect(await ottoPr(client, "comments")).toContain("1 answered");

    const posted = f.gh.state.comments.filter((c) => c.user.login === "otto-bot" && c.body.includes(`issue-${question.id}`));
    expect(posted).toHaveLength(1);
    expect(posted[0]?.body).toContain("It uses the token [REDACTED] against https://[REDACTED]@git.example.com/org/app.git, by design.");
    // Not in any request otto sent, nor in the PR document.
    for (const c of f.gh.calls) {
      const body = JSON.stringify(c.body ?? "");
      expect(body).not.toContain(JWT);
      expect(body).not.toContain(URL_PASSWORD);
    }
    const docText = fs.readFileSync(path.join(ws.dirs.dataHome, "otto", "prs", "github-octo-app-1.md"), "utf8");
    expect(docText).not.toContain(JWT);
    expect(docText).not.toContain(URL_PASSWORD);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});

describe("secrets stay out of the spec files otto writes (real OpenCode, no forge credentials)", () => {
  const e2e = useE2E({}, { shareServer: true });

  it("a spec stage whose model writes a configured short secret leaves it in no spec file or history record", async () => {
    const ws = await e2e.workspace({ userOttoConfig: { opencode: { password: SHORT } } });
    const leaky = `${REQUIREMENTS.trim()}\n\n## Notes\nThe staging server's password is ${SHORT}; its token is ${JWT}.\n`;
    e2e.model.script(
      ...slashCommand("otto_spec"),
      specModel((kind) => (kind === "requirements" ? doc(leaky) : undefined)),
    );
    const run = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "add", "Add rate limiting to the API"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("Created spec add-rate-limiting-api");

    const dir = path.join(ws.project, ".otto", "specs", "add-rate-limiting-api");
    const requirements = fs.readFileSync(path.join(dir, "requirements.md"), "utf8");
    expect(requirements).toContain("The staging server's password is [REDACTED]; its token is [REDACTED].");
    const files = fs
      .readdirSync(dir, { recursive: true, encoding: "utf8" })
      .map((f) => path.join(dir, f))
      .filter((f) => fs.statSync(f).isFile());
    expect(files.some((f) => f.includes(`${path.sep}history${path.sep}`))).toBe(true);
    for (const file of files) {
      const content = fs.readFileSync(file, "utf8");
      expect(content, file).not.toContain(SHORT);
      expect(content, file).not.toContain(JWT);
    }
    expect(e2e.model.unmatched()).toEqual([]);
  });
});

/** The project on the PR's branch, pushed, with `origin` spelt as the forge's URL (rewritten to the bare remote). */
async function checkoutPrBranch(ws: Workspace, repoUrl: string, branch: string): Promise<void> {
  await ws.repo.git(["checkout", "-q", "-b", branch]);
  await ws.repo.commit("Add total", { "src/calc.ts": "export const total = (p: number) => p * 1.19;\n" });
  await ws.repo.git(["push", "-q", "-u", "origin", branch]);
  await ws.repo.git(["config", `url.${ws.repo.remote}.insteadOf`, repoUrl]);
  await ws.repo.git(["remote", "set-url", "origin", repoUrl]);
}
