import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isOttoError } from "../../../../src/core/index.ts";
import {
  detectWorkflows,
  parsePins,
  planCiInit,
  planModels,
  providerSecrets,
  readPins,
  workflowName,
} from "../../../../src/pr/ci/init/index.ts";
import { writeCiFiles } from "../../../../src/pr/ci/init/write-files.ts";
import { useTempDir } from "../support.ts";

const tempDir = useTempDir();

describe("ci init: what goes into the files", () => {
  it("pins otto's own version and the opencode-ai it is tested with, exactly", async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "../../../../package.json"), "utf8")) as {
      version: string;
      devDependencies: Record<string, string>;
    };
    expect(await readPins()).toEqual({ otto: pkg.version, opencode: pkg.devDependencies["opencode-ai"] });
    expect(() => parsePins(JSON.stringify({ version: "0.1.0", devDependencies: { "opencode-ai": "^1.18.33" } }))).toThrow(/exact version/);
  });

  it("secrets per provider: OpenCode's list first, then the common ones, then a placeholder; OAuth-only providers get none", () => {
    const secrets = providerSecrets(
      ["anthropic/a", "openai/b", "anthropic/c", "acme-llm/x", "github-copilot/y", "mine/z"],
      new Map([
        ["mine", ["MINE_TOKEN"]],
        ["openai", []],
      ]),
    );
    expect(secrets).toEqual([
      { provider: "anthropic", names: ["ANTHROPIC_API_KEY"], source: "known" },
      { provider: "openai", names: ["OPENAI_API_KEY"], source: "known" },
      { provider: "acme-llm", names: ["ACME_LLM_API_KEY"], source: "placeholder" },
      { provider: "github-copilot", names: [], source: "oauth" },
      { provider: "mine", names: ["MINE_TOKEN"], source: "opencode" },
    ]);
  });

  it("models: primary drives OpenCode's model, else the current one; unset roles stay unset", () => {
    expect(planModels({ secondary: "openai/gpt-5" }, "mock/m1")).toEqual({
      setup: { model: "mock/m1", models: { secondary: "openai/gpt-5" } },
      used: ["mock/m1", "openai/gpt-5"],
    });
    expect(planModels({ primary: "anthropic/a", reviewers: ["openai/b", "anthropic/a"] }, "mock/m1").used).toEqual([
      "anthropic/a",
      "openai/b",
    ]);
    expect(() => planModels({}, undefined)).toThrow(/models.primary is not set/);
  });

  it("placeholders and guesses are said, in the output and in the file", () => {
    const plan = planCiInit({
      forge: "github",
      pins: { otto: "0.1.0", opencode: "1.18.33" },
      models: { primary: "acme/x" },
      opencodeEnv: new Map(),
      workflows: [],
      checkSuites: false,
      jobs: [],
    });
    expect(plan.notes.join("\n")).toContain('No workflow found in .github/workflows: otto listens to one named "CI"');
    expect(plan.notes.join("\n")).toContain("ACME_API_KEY: a guess for provider acme");
    expect(plan.files[0]?.text).toContain("# ACME_API_KEY: a guess for provider acme");
  });

  it("workflow names: the top-level name, else the path; otto's own workflow is left out", async () => {
    expect(workflowName(".github/workflows/ci.yml", "on: push\njobs:\n  a:\n    name: not this\n")).toBe(".github/workflows/ci.yml");
    expect(workflowName(".github/workflows/ci.yml", "name: 'Build & test' # main\non: push\n")).toBe("Build & test");
    const root = tempDir();
    fs.mkdirSync(path.join(root, ".github/workflows"), { recursive: true });
    fs.writeFileSync(path.join(root, ".github/workflows/ci.yml"), 'name: "CI"\non: [pull_request]\n');
    fs.writeFileSync(path.join(root, ".github/workflows/lint.yaml"), "on: [push]\n");
    fs.writeFileSync(path.join(root, ".github/workflows/otto.yml"), "name: otto\n");
    fs.writeFileSync(path.join(root, ".github/workflows/README.md"), "name: nope\n");
    expect(await detectWorkflows(root)).toEqual(["CI", ".github/workflows/lint.yaml"]);
  });

  it("writes every file or none: an existing file is refused without --force, replaced with it", async () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, "b.yml"), "mine\n");
    const files = [
      { path: "dir/a.yml", text: "a\n" },
      { path: "b.yml", text: "b\n" },
    ];
    const error = await writeCiFiles(root, files, false).catch((e: unknown) => e);
    expect(isOttoError(error) && error.code).toBe("ci_file_exists");
    expect(fs.existsSync(path.join(root, "dir/a.yml"))).toBe(false);
    expect(fs.readFileSync(path.join(root, "b.yml"), "utf8")).toBe("mine\n");
    // A symlink in the way is replaced, never written through.
    const outside = path.join(tempDir(), "outside.txt");
    fs.writeFileSync(outside, "keep\n");
    fs.rmSync(path.join(root, "b.yml"));
    fs.symlinkSync(outside, path.join(root, "b.yml"));
    await writeCiFiles(root, files, true);
    expect(fs.readFileSync(path.join(root, "dir/a.yml"), "utf8")).toBe("a\n");
    expect(fs.lstatSync(path.join(root, "b.yml")).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(path.join(root, "b.yml"), "utf8")).toBe("b\n");
    expect(fs.readFileSync(outside, "utf8")).toBe("keep\n");
  });
});
