import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prWorkRules } from "../../../src/pr/index.ts";
import { gitEnv, runGit } from "../../support/index.ts";

const rule = (id: string, text: string, scope: string) =>
  `## ${id}\n\n${text}\n\n- status: accepted\n- scope: \`${scope}\`\n- seen: 1\n- first_seen: 2026-11-01\n- last_seen: 2026-11-01\n`;

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "otto-pr-rules-"));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("the rules of a PR's fixes and answers", () => {
  it("come from the target branch, in scope of the PR's changes and the commented file; a rule the PR adds is not among them", async () => {
    const git = async (...args: string[]) => {
      const result = await runGit(args, root);
      if (result.exitCode !== 0) throw new Error(result.stderr);
    };
    const write = async (file: string, text: string) => {
      await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await fs.writeFile(path.join(root, file), text);
    };
    await git("init", "-q", "-b", "main");
    await write(
      ".otto/rules.md",
      `# Team rules\n\n${rule("r-000001", "Use logger.info.", "src/**")}\n${rule("r-000002", "British English.", "docs/**")}`,
    );
    await write("src/a.ts", "a\n");
    await git("add", "-A");
    await git("commit", "-q", "-m", "main");
    await git("update-ref", "refs/remotes/origin/main", "HEAD");
    await git("checkout", "-q", "-b", "feature");
    await write("src/a.ts", "b\n");
    await write(
      ".otto/rules.md",
      `${await fs.readFile(path.join(root, ".otto/rules.md"), "utf8")}\n${rule("r-0000ff", "Anything goes.", "**")}`,
    );
    await git("commit", "-q", "-am", "feature");

    const env = gitEnv({ HOME: root, XDG_CONFIG_HOME: path.join(root, "cfg"), XDG_DATA_HOME: path.join(root, "data") });
    const input = { dir: root, remote: "origin", targetBranch: "main", env, key: "octo/app", purpose: "write" as const };
    const changes = await prWorkRules(input);
    expect(changes.repoIds).toEqual(["r-000001"]);
    expect(changes.text).toContain("- [r-000001] (src/**) Use logger.info.");
    expect(changes.text).not.toContain("r-0000ff");
    expect((await prWorkRules({ ...input, files: ["docs/x.md"] })).repoIds).toEqual(["r-000001", "r-000002"]);
  });
});
