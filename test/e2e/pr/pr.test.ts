import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assertPluginLoaded, FAKE_GITHUB_TOKEN, slashCommand, useE2E } from "../../support/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";

describe("/otto-pr through real OpenCode against fake GitHub and Azure DevOps", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();

  it("adds by URL and by id, lists, shows status and log, removes", async () => {
    const f = await forges();
    const one = f.gh.state.addPr({ number: 1, title: "Add auth", branch: "feature/auth" });
    f.gh.state.setChecks(one, [{ name: "build" }, { name: "lint" }, { name: "unit", conclusion: "failure" }]);
    f.gh.state.setChecks(f.gh.state.addPr({ number: 2, title: "Fix timeout", branch: "fix/timeout" }), [
      { name: "build", status: "in_progress" },
    ]);
    f.ado.state.setChecks(f.ado.state.addPr({ id: 30, title: "Payments retry", branch: "users/me/retry" }), [{ name: "ci" }]);
    const ws = await e2e.workspace({ userOttoConfig: f.ottoConfig(), env: f.env });
    // Bare GitHub numbers resolve against the repository's origin.
    await ws.repo.git(["remote", "add", "origin", "git@github.com:octo/app.git"]);
    const { client } = await e2e.serve(ws);
    await assertPluginLoaded(client);
    e2e.model.script({ ...slashCommand("otto_pr")[0]!, times: Infinity }, { ...slashCommand("otto_pr")[1]!, times: Infinity });

    expect(await ottoPr(client, "add https://github.com/octo/app/pull/1")).toMatch(
      /Detected backend: github\nTracking PR #1 \(feature\/auth → main\) in octo\/app: Add auth\nPipeline: failure, 2\/3 passing/,
    );
    expect(await ottoPr(client, "add 30 --provider ado")).toContain("Tracking PR #30 (users/me/retry → main) in contoso/payments/app");
    expect(await ottoPr(client, "add 2")).toContain("Tracking PR #2 (fix/timeout → main) in octo/app");
    expect(await ottoPr(client, "add https://github.com/octo/app/pull/1")).toContain("Already tracking PR #1");
    expect(await ottoPr(client, "add https://gitlab.com/a/b/-/merge_requests/1")).toMatch(
      /^Error: .* is not a pull request URL otto recognises\.\nNext step: /,
    );

    const list = await ottoPr(client, "list");
    expect(list).toContain("| ID | PROVIDER | REPO | BRANCH | STATUS | PIPELINE |");
    expect(list).toContain("| 1 | github | octo/app | feature/auth | watching | 2/3 passing (1 failing) |");
    expect(list).toContain("| 30 | ado | contoso/payments/app | users/me/retry | watching | 1/1 passing |");
    expect(list).toContain("| 2 | github | octo/app | fix/timeout | watching | pending, 0/1 passing (1 pending) |");

    const status = await ottoPr(client, "status 1");
    expect(status).toContain("PR #1: feature/auth → main (github, octo/app)");
    expect(status).toContain("Pipeline: build PASSED, lint PASSED, unit FAILURE");
    expect(status).toContain("  - unit: unit failed (https://github.com/octo/app/actions/runs/");
    expect(await ottoPr(client, `status https://dev.azure.com/contoso/payments/_git/app/pullrequest/30`)).toContain(
      "PR #30: users/me/retry → main (ado, contoso/payments/app)",
    );
    expect(await ottoPr(client, "status")).toMatch(/^Error: 3 PRs are tracked; which one\?\nNext step: Pass one of: github-octo-app-1/);
    expect(await ottoPr(client, "log 30")).toMatch(
      /## Fix History\n\n_No fix attempts yet._\n\n## Comment History\n\n_No comments handled yet._\n\n## Log\n\n- \S+ added \(watching\), pipeline success \(1\/1 passing\)/,
    );

    expect(await ottoPr(client, "remove 2")).toBe("Stopped tracking PR #2 (octo/app); removed github-octo-app-2.md.");
    const dir = path.join(ws.dirs.dataHome, "otto", "prs");
    expect(
      fs
        .readdirSync(dir)
        .filter((n) => n.endsWith(".md"))
        .sort(),
    ).toEqual(["ado-contoso-30.md", "github-octo-app-1.md"]);
    // The documents never hold the token; with one PR left, `log` needs no id.
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".md")))
      expect(fs.readFileSync(path.join(dir, name), "utf8")).not.toContain(FAKE_GITHUB_TOKEN);
    expect(await ottoPr(client, "remove 30")).toContain("removed ado-contoso-30.md");
    expect(await ottoPr(client, "log")).toContain("# PR #1 (octo/app): Add auth");

    // pr.default_provider (the repo's otto.jsonc, read per command) picks the backend of a bare id,
    // although origin is on GitHub; --provider still wins over it.
    f.ado.state.addPr({ id: 31, title: "Default provider", branch: "users/me/default" });
    ws.writeOttoConfig({ pr: { default_provider: "ado" } });
    const ghPolls = f.gh.calls.length;
    const viaDefault = await ottoPr(client, "add 31");
    expect(viaDefault).toContain(
      "Detected backend: ado\nTracking PR #31 (users/me/default → main) in contoso/payments/app: Default provider",
    );
    expect(f.gh.calls.length).toBe(ghPolls);
    expect(fs.existsSync(path.join(dir, "ado-contoso-31.md"))).toBe(true);
    expect(await ottoPr(client, "add 31 --provider github")).toMatch(/^Error: GitHub has no pull request octo\/app#31/);
    expect(e2e.model.unmatched()).toEqual([]);
  });
});
