import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isOttoError } from "../../../src/core/index.ts";
import { analyzeCodebase, renderCodebaseSummary, type GitRunner } from "../../../src/analysis/index.ts";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "otto-analysis-"));
  dirs.push(dir);
  return dir;
}

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "init.defaultBranch=main", ...args], { cwd, stdio: "ignore" });
}

async function write(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/** Many small files, written a chunk at a time so the test does not open thousands at once. */
async function writeMany(root: string, dir: string, count: number, perDir: number, ext: string): Promise<void> {
  for (let d = 0; d * perDir < count; d++) await mkdir(join(root, dir, `pkg${d}`), { recursive: true });
  const paths = Array.from({ length: count }, (_, i) => join(root, dir, `pkg${Math.floor(i / perDir)}`, `f${i}.${ext}`));
  for (let i = 0; i < paths.length; i += 500) {
    await Promise.all(paths.slice(i, i + 500).map((p) => writeFile(p, "export const x = 1;\n")));
  }
}

describe("file listing", () => {
  it("respects .gitignore inside a git work tree", async () => {
    const root = await tempDir();
    git(root, "init", "-q");
    await write(root, { ".gitignore": "generated/\n*.log\n", "src/main.go": "package main\n", "debug.log": "x" });
    await writeMany(root, "generated", 300, 100, "go");
    git(root, "add", "src/main.go");

    const summary = await analyzeCodebase(root);
    expect(summary.files).toEqual({ total: 2, listedBy: "git", truncated: false });
    expect(summary.layout.topLevel).toEqual([
      { path: ".", files: 1 },
      { path: "src/", files: 1 },
    ]);
    expect(summary.languages).toEqual([{ name: "Go", files: 1 }]);
  });

  it("walks the directory outside git, skipping dependency and build folders", async () => {
    const root = await tempDir();
    await write(root, {
      "package.json": JSON.stringify({ name: "walked", dependencies: { fastify: "^4.0.0" } }),
      "src/server.ts": "export {};\n",
      "node_modules/fastify/index.js": "module.exports = {};\n",
      "dist/server.js": "\n",
      ".venv/lib/site.py": "\n",
    });
    const notARepo: GitRunner = () => Promise.resolve({ exitCode: 128, stdout: "", stderr: "fatal: not a git repository" });

    const summary = await analyzeCodebase(root, { git: notARepo });
    expect(summary.files).toEqual({ total: 2, listedBy: "walk", truncated: false });
    expect(summary.archetype.kind).toBe("rest-api");
    expect(summary.notes).toEqual([]);
  });

  it("falls back to a walk, with a note, when git fails for another reason", async () => {
    const root = await tempDir();
    await write(root, { "main.py": "print('hi')\n" });
    const broken: GitRunner = () => Promise.resolve({ exitCode: -1, stdout: "", stderr: "git timed out after 5 ms" });

    const summary = await analyzeCodebase(root, { git: broken });
    expect(summary.files.listedBy).toBe("walk");
    expect(summary.notes[0]).toBe("git ls-files failed (git timed out after 5 ms); files were listed by walking the directory.");
  });

  it.each(["git", "walk"] as const)("stops at maxFiles and says so (%s)", async (mode) => {
    const root = await tempDir();
    if (mode === "git") git(root, "init", "-q");
    await writeMany(root, "src", 40, 10, "ts");
    const options = mode === "walk" ? { git: (() => Promise.resolve({ exitCode: 128, stdout: "", stderr: "" })) as GitRunner } : {};

    const summary = await analyzeCodebase(root, { ...options, maxFiles: 25 });
    expect(summary.files).toEqual({ total: 25, listedBy: mode, truncated: true });
    expect(summary.notes).toContain("Listing stopped at the 25-file limit; counts cover those files only.");
    expect(renderCodebaseSummary(summary)).toContain("- **Files:** 25+ (");
  });
});

describe("bounds", () => {
  it("handles a large tree: truncates the listing, ignores the ignored and samples a bounded set", async () => {
    const root = await tempDir();
    git(root, "init", "-q");
    await write(root, { ".gitignore": "/deps-cache/\n", "package.json": JSON.stringify({ name: "big" }) });
    await writeMany(root, "src", 30_000, 500, "ts");
    await writeMany(root, "deps-cache", 5_000, 500, "js");

    const summary = await analyzeCodebase(root);
    expect(summary.files).toEqual({ total: 20_000, listedBy: "git", truncated: true });
    expect(summary.notes).toContain("Listing stopped at the 20000-file limit; counts cover those files only.");
    expect(summary.languages.map((l) => l.name)).toEqual(["TypeScript"]);
    expect(summary.layout.topLevel.map((t) => t.path)).not.toContain("deps-cache/");
    expect(summary.sample.files).toBeLessThanOrEqual(200);
    expect(summary.sample.bytes).toBeLessThanOrEqual(200 * 64 * 1024);
  }, 120_000);

  it("stops sampling at the time budget and notes it (injected clock)", async () => {
    const root = await tempDir();
    git(root, "init", "-q");
    await writeMany(root, "src", 50, 10, "ts");
    // Each call advances the clock 400 ms against a 1000 ms budget: listing fits, sampling does not.
    let clock = 0;
    const now = () => (clock += 400);

    const summary = await analyzeCodebase(root, { now, timeBudgetMs: 1000 });
    expect(summary.files.total).toBe(50);
    expect(summary.sample.files).toBeLessThan(50);
    expect(summary.notes.some((n) => n.startsWith("Convention sampling stopped at the time budget after"))).toBe(true);
    expect(renderCodebaseSummary(summary)).toContain("### Notes");
  });

  it("reads at most maxBytesPerFile of any file", async () => {
    const root = await tempDir();
    const big = `${"// padding\n".repeat(2000)}export class LateError extends Error {}\n`;
    await write(root, { "src/errors.ts": big, "src/index.ts": "export class EarlyError extends Error {}\n" });
    const summary = await analyzeCodebase(root, { maxBytesPerFile: 1024 });
    expect(summary.conventions.errors[0]?.evidence[0]).toContain("EarlyError");
    expect(summary.conventions.errors[0]?.evidence[0]).not.toContain("LateError");
    expect(summary.sample.bytes).toBeLessThanOrEqual(2048);
  });
});

describe("edge cases", () => {
  it("reports an empty repository as empty", async () => {
    const root = await tempDir();
    git(root, "init", "-q");
    const summary = await analyzeCodebase(root);
    expect(summary.empty).toBe(true);
    expect(summary.files.total).toBe(0);
    expect(renderCodebaseSummary(summary)).toBe("## Codebase summary\n\nThe repository is empty: there is no existing code to follow.");
  });

  it("turns a broken manifest into a note", async () => {
    const root = await tempDir();
    await write(root, { "package.json": "{ not json", "index.js": "\n" });
    const summary = await analyzeCodebase(root);
    expect(summary.manifests).toEqual([]);
    expect(summary.notes.some((n) => n.startsWith("Could not parse package.json:"))).toBe(true);
  });

  it("rejects a root that is not a directory", async () => {
    const root = await tempDir();
    const error: unknown = await analyzeCodebase(join(root, "missing")).catch((e: unknown) => e);
    expect(isOttoError(error) && error.code).toBe("analysis_root_missing");
  });

  it("is deterministic", async () => {
    const root = await tempDir();
    await write(root, { "go.mod": "module example.com/x\n\ngo 1.22\n", "main.go": "package main\n", "a/b.go": "package a\n" });
    const first = renderCodebaseSummary(await analyzeCodebase(root));
    const second = renderCodebaseSummary(await analyzeCodebase(root));
    expect(second).toBe(first);
  });
});
