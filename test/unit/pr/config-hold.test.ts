import { describe, expect, it } from "vitest";
import { configChanges, holdText, notifyHold } from "../../../src/pr/context/config-hold.ts";
import { gitEnv } from "../../support/git.ts";
import { clone } from "../repo/fixtures.ts";

/* Which OpenCode configuration a PR's head changes, judged from the target or from the head a person accepted (real git). */

describe("configChanges", () => {
  it("against the target branch, then only since the head a person accepted; a head not descending from it is judged from the target again", async () => {
    const repo = await clone({ "src/a.ts": "1\n" });
    await repo.git(["checkout", "-q", "-b", "feature"]);
    await repo.commit("tooling", { "opencode.json": "{}\n" });
    const env = gitEnv();
    const check = (state: { config_ok_sha?: string }) =>
      configChanges({ dir: repo.dir, remote: "origin", pr: { targetBranch: "main" }, state, env });

    const first = await check({});
    expect(first).toMatchObject({ files: ["opencode.json"], since: "origin/main" });
    const accepted = first.head;
    expect(accepted).toBe(await repo.git(["rev-parse", "HEAD"]));

    await repo.commit("code", { "src/a.ts": "2\n" });
    expect((await check({ config_ok_sha: accepted })).files).toEqual([]);
    await repo.commit("more tooling", { ".opencode/plugin/p.js": "export default 1;\n" });
    expect(await check({ config_ok_sha: accepted })).toMatchObject({
      files: [".opencode/plugin/p.js"],
      since: `the head a person accepted (${accepted.slice(0, 7)})`,
    });
    // Rewritten history (or an unknown sha): the whole PR counts again.
    expect((await check({ config_ok_sha: "0".repeat(40) })).files.sort()).toEqual([".opencode/plugin/p.js", "opencode.json"]);
  });

  it("a target otto cannot compare with holds the PR (every file may have changed)", async () => {
    const repo = await clone();
    expect(
      (await configChanges({ dir: repo.dir, remote: "origin", pr: { targetBranch: "no-such-branch" }, state: {}, env: gitEnv() })).files,
    ).toEqual(["*"]);
  });
});

describe("notifyHold and holdText", () => {
  it("tell a person once per head, naming the files and the command that lets otto proceed", () => {
    expect(notifyHold({ config_hold_sha: "abc" }, "abc")).toBe(false);
    expect(notifyHold({ config_hold_sha: "abc" }, "def")).toBe(true);
    const text = holdText(
      { number: 3, title: "T" },
      { files: ["opencode.json"], since: "origin/main", head: "h" },
      "start a fix session",
      "/otto-pr fix 3",
    );
    expect(text.title).toBe("PR #3: its OpenCode configuration changed; otto waits for a person");
    expect(text.text).toContain(
      "otto did not start a fix session on PR #3 (T): the PR's head changes OpenCode configuration (`opencode.json`, compared with origin/main)",
    );
    expect(text.text).toContain("run /otto-pr fix 3");
  });
});
