import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, slashCommand, useE2E } from "../../support/index.ts";
import { npmEnv, packPackage, type Packed } from "../../support/package.ts";

/*
 * The package as users get it. A user writes `"plugin": ["opencode-otto"]`; OpenCode 1.18 resolves
 * a plugin that is not a path with its own npm (Arborist): `Npm.add("<spec>")` installs into
 * `$XDG_CACHE_HOME/opencode/packages/<spec>/` and loads the package's `main`. A bare name becomes
 * the spec `opencode-otto@latest`. Here the spec is `opencode-otto@file:<tarball>`, the same path
 * through OpenCode with the packed tarball in place of the registry's (its dependencies come from
 * the npm cache, or the registry when they are not cached).
 */

const markdownIn = (dir: string) =>
  fs
    .readdirSync(path.join(REPO_ROOT, dir))
    .filter((n) => n.endsWith(".md"))
    .map((n) => `${dir}/${n}`);

const REQUIREMENTS = "# Requirements\n\n## Goal\n\nRate-limit the public API.\n";

describe("the published package", () => {
  const e2e = useE2E();
  let dir: string;
  let packed: Packed;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-pack-"));
    packed = await packPackage(dir);
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("holds what otto reads at run time and nothing else", async () => {
    const files = (await packPackage()).files.map((f) => f.path).sort();
    // Everything otto loads: the code, and the markdown assets and schema it reads from its root.
    for (const needed of [
      "package.json",
      "src/index.ts",
      "src/tools/manifest.ts",
      "otto.schema.json",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
    ]) {
      expect(files, needed).toContain(needed);
    }
    for (const folder of ["prompts", "agents", "commands"]) {
      const assets = markdownIn(folder);
      expect(assets.length, folder).toBeGreaterThan(0);
      expect(files).toEqual(expect.arrayContaining(assets));
    }
    // Nothing else: no tests, fixtures, benches, scripts, docs or tool config.
    const allowed =
      /^(src\/.+\.ts|prompts\/[^/]+\.md|agents\/[^/]+\.md|commands\/[^/]+\.md|package\.json|README\.md|LICENSE|CHANGELOG\.md|otto\.schema\.json)$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    expect(files.filter((f) => /(^|\/)(test|tests|__tests__|fixtures)\/|\.test\.ts$/.test(f))).toEqual([]);
    // The tarball holds the same files the dry run lists.
    expect(packed.files.map((f) => f.path).sort()).toEqual(files);
  });

  it("installs the way OpenCode installs a registry plugin and runs /otto-config validate and /otto-spec list", async () => {
    const tarball = packed.tarball ?? "";
    const spec = `opencode-otto@file:${tarball}`;
    const ws = await e2e.workspace({
      files: { "README.md": "# demo\n", ".otto/specs/rate-limit/requirements.md": REQUIREMENTS },
      ottoConfig: { models: { primary: "mock/m1" } },
      env: npmEnv(),
    });
    // Only the package: nothing points at the checkout.
    ws.updateConfig({ plugin: [spec] });
    expect(fs.readFileSync(ws.configFile, "utf8")).not.toContain(REPO_ROOT.replace(/\/$/, ""));

    e2e.model.script(...slashCommand("otto_config"));
    // The first run installs the package (~10 s from the npm cache, longer from the registry).
    const validate = await e2e.run(ws, ["run", "--command", "otto-config", "--", "validate"], { timeoutMs: 240_000 });
    expect(validate.exitCode, validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(/^OK/m);
    expect(validate.stdout).toContain(path.join(ws.project, ".otto", "otto.jsonc"));

    // Where OpenCode put it: its package cache, from the tarball, without the host packages otto
    // only takes types from (a user's install never has them).
    const root = path.join(ws.dirs.cacheHome, "opencode", "packages", spec, "node_modules");
    const installed = JSON.parse(fs.readFileSync(path.join(root, "opencode-otto", "package.json"), "utf8")) as { version: string };
    const own = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    expect(installed.version).toBe(own.version);
    expect(fs.existsSync(path.join(root, "opencode-otto", "test"))).toBe(false);
    for (const absent of ["@opencode-ai/plugin", "@opencode-ai/sdk", "effect"])
      expect(fs.existsSync(path.join(root, absent)), absent).toBe(false);
    expect(fs.readdirSync(path.join(root, "@octokit")).filter((n) => n === "openapi-types")).toEqual(["openapi-types"]);

    e2e.model.script(...slashCommand("otto_spec"));
    const list = await e2e.run(ws, ["run", "--command", "otto-spec", "--", "list"], { timeoutMs: 120_000 });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/\| rate-limit \| yes \| - \| - \| - \|/);
    expect(list.stdout).toContain("/otto-spec research --spec rate-limit");
    // Otto asked OpenCode its version at load (GET /global/health) and found it new enough.
    expect(ws.logs()).not.toContain("otto needs OpenCode");
    expect(e2e.model.pending()).toEqual([]);
    expect(e2e.model.unmatched()).toEqual([]);
  }, 400_000);
});
