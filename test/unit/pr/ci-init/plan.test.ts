import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isOttoError } from "../../../../src/core/index.ts";
import {
  ciInit,
  describeCiInit,
  detectWorkflows,
  isLocalUrl,
  parsePins,
  planCiInit,
  planModels,
  providerSecrets,
  readPins,
  workflowName,
  type CiInitPlanInput,
} from "../../../../src/pr/ci/init/index.ts";
import { writeCiFiles } from "../../../../src/pr/ci/init/write-files.ts";
import { useTempDir } from "../support.ts";

const tempDir = useTempDir();

const base = (forge: "github" | "azure"): CiInitPlanInput => ({
  forge,
  pins: { otto: "0.1.0", opencode: "1.18.33" },
  models: { primary: "anthropic/claude-sonnet-4-5" },
  opencodeEnv: new Map(),
  workflows: ["CI"],
  checkSuites: false,
  jobs: ["Build"],
});

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

  it("models: primary drives OpenCode's model, else the current one, and is written as the job's models.primary", () => {
    expect(planModels({ secondary: "openai/gpt-5" }, "anthropic/claude-sonnet-4-5")).toEqual({
      setup: { model: "anthropic/claude-sonnet-4-5", models: { primary: "anthropic/claude-sonnet-4-5", secondary: "openai/gpt-5" } },
      used: ["anthropic/claude-sonnet-4-5", "openai/gpt-5"],
    });
    expect(planModels({ primary: "anthropic/a", reviewers: ["openai/b", "anthropic/a"] }, "mock/m1").used).toEqual([
      "anthropic/a",
      "openai/b",
    ]);
    expect(() => planModels({}, undefined)).toThrow(/models.primary is not set/);
  });

  it("no models configured: the file carries the model the command ran with, which the CI job then finds (never an empty models block)", () => {
    const plan = planCiInit({ ...base("github"), models: {}, currentModel: "openai/gpt-5" });
    const otto = /OTTO_CONFIG_JSON: (".*")$/m.exec(plan.files[0]?.text ?? "")?.[1] ?? '""';
    expect(JSON.parse(JSON.parse(otto) as string)).toEqual({ models: { primary: "openai/gpt-5" }, sandbox: "required" });
    expect(plan.secrets).toEqual([{ provider: "openai", names: ["OPENAI_API_KEY"], source: "known" }]);
  });

  it("a model served on this machine is refused, naming the roles to set and the command; no secret name is guessed for it", () => {
    const local = new Map([["ollama", "http://127.0.0.1:11434/v1"]]);
    const refuse = (models: Record<string, unknown>, current?: string) => {
      try {
        planCiInit({ ...base("azure"), models, currentModel: current, localProviders: local });
        return undefined;
      } catch (error) {
        return isOttoError(error) ? error : undefined;
      }
    };
    const error = refuse({}, "ollama/llama3");
    expect(error?.code).toBe("ci_local_model");
    expect(error?.message).toContain("ollama/llama3");
    expect(error?.message).toContain("http://127.0.0.1:11434/v1");
    expect(error?.message).not.toMatch(/OLLAMA_API_KEY/);
    expect(error?.fix).toContain("/otto-config set models.primary");
    expect(error?.fix).toContain("/otto-pr ci init");
    expect(refuse({ primary: "anthropic/a", reviewers: ["ollama/llama3"] })?.code).toBe("ci_local_model");
    expect(refuse({ primary: "anthropic/a" }, "ollama/llama3")).toBeUndefined();
    expect(isLocalUrl("http://localhost:1234/v1") && isLocalUrl("http://[::1]:8080") && !isLocalUrl("https://api.openai.com/v1")).toBe(
      true,
    );
  });

  it("the origin remote: none, another forge's, or the right one", () => {
    const notes = (forge: "github" | "azure", remote: { origin: boolean; github: boolean; azure: boolean }) =>
      planCiInit({ ...base(forge), remote }).notes.join("\n");
    expect(notes("github", { origin: false, github: false, azure: false })).toContain("This checkout has no origin remote");
    expect(notes("github", { origin: true, github: false, azure: true })).toContain(
      "The origin remote is not a GitHub repository otto recognises (it is on Azure DevOps)",
    );
    expect(notes("github", { origin: true, github: false, azure: true })).toContain("Run /otto-pr ci init azure");
    expect(notes("azure", { origin: true, github: false, azure: false })).toContain("pr.providers.ado.base_url");
    expect(notes("github", { origin: true, github: true, azure: false })).not.toContain("remote");
    expect(notes("azure", { origin: true, github: false, azure: true })).not.toContain("remote");
  });

  it("azure: the incoming webhook's name is the one ci init drew, said in the output and kept out of the files", () => {
    const plan = planCiInit({ ...base("azure"), webhookName: "otto-0123456789abcdef0123" });
    const out = describeCiInit(plan, "azure", ["Build"]);
    expect(out).toContain("webhook name `otto-0123456789abcdef0123`");
    expect(out).toContain("/_apis/public/distributedtask/webhooks/otto-0123456789abcdef0123?api-version");
    expect(out).toContain("Exclusive lock check");
    expect(out).toContain("Project Collection Build Service (<organization>)");
    for (const f of plan.files) expect(f.text).not.toContain("0123456789abcdef");
  });

  it("azure: Queue builds is asked for when pr.flakes.rerun is on, saying why; otherwise offered as optional; never on GitHub", async () => {
    const run = (forge: string, rerun: boolean) =>
      ciInit({
        ...base(forge === "github" ? "github" : "azure"),
        forge,
        root: tempDir(),
        force: false,
        pins: { otto: "0.1.0", opencode: "1.18.33" },
        rerun,
      });
    const queue = (out: string) => out.split("\n").filter((l) => l.includes("Queue builds"));
    expect(queue(await run("azure", true))).toEqual([
      "   - Pipelines → your PR pipeline → ⋯ → Manage security → the same build identity: Queue builds: Allow: pr.flakes.rerun is on, so otto re-runs the failed jobs of a red head it cannot reproduce, to tell a flake (and once after an infrastructure failure or a flaky one); without it every such re-run is refused.",
    ]);
    const off = queue(await run("azure", false));
    expect(off).toHaveLength(1);
    expect(off[0]).toMatch(
      /^ {3}- optional, Pipelines → .*Queue builds: Allow: .*asks a person to\. \(With pr\.flakes\.rerun on, ci init asks for it\.\)$/,
    );
    expect(queue(await run("github", true))).toEqual([]);
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
