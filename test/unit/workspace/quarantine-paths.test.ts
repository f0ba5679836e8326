import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGit } from "../../../src/workspace/index.ts";
import { isOpencodeCode, moveOut, quarantineLine, quarantineOpencodeCode } from "../../../src/workspace/quarantine.ts";
import type { GitRun } from "../../../src/workspace/snapshot.ts";
import { createRepo, gitEnv, removeAfterTest, type Repo } from "../../support/git.ts";

/*
 * quarantineOpencodeCode on its own (quarantine.test.ts drives it through otto's commit): which
 * paths it takes, where they go, and that it never follows a link out of the tree.
 */

let repo: Repo | undefined;
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
});

function dataHome(base = os.tmpdir()): string {
  const dir = fs.mkdtempSync(path.join(base, "otto-quarantine-data-"));
  removeAfterTest(dir);
  return dir;
}

/** git as otto runs it, with every call recorded. */
function recordingGit(): { git: GitRun; calls: string[][] } {
  const calls: string[][] = [];
  const git: GitRun = (args, options) => {
    calls.push(args);
    return runGit(args, { ...options, env: gitEnv() });
  };
  return { git, calls };
}

function write(root: string, rel: string, text = "x\n"): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

describe("isOpencodeCode and quarantineLine", () => {
  it("only a file named opencode.json(c), not one that ends so", () => {
    expect(isOpencodeCode("my-opencode.json")).toBe(false);
    expect(isOpencodeCode("a/xopencode.jsonc")).toBe(false);
    expect(isOpencodeCode("a/OpenCode.JSONC")).toBe(true);
  });

  it("names up to ten paths and counts the rest", () => {
    const ten = Array.from({ length: 10 }, (_, i) => `p${i}`);
    expect(quarantineLine({ paths: ten, dir: "/q" })).toBe(
      `Moved out of the tree, not committed: ${ten.join(", ")}: OpenCode configuration a session wrote, which the next OpenCode start would load outside the sandbox. It is in /q: look before you copy any of it back.`,
    );
    expect(quarantineLine({ paths: [...ten, "p10", "p11"], dir: "/q" })).toContain(`${ten.join(", ")} and 2 more: OpenCode`);
    expect(quarantineLine({ paths: ["a"], dir: "/q" })).toContain("not committed: a: OpenCode");
  });
});

describe("quarantineOpencodeCode", () => {
  it("from a subfolder, takes paths from the tree's top into a stamped folder of otto's data; a tracked file is put back, an untracked one is not checked out", async () => {
    repo = await createRepo({ files: { "opencode.json": "{}\n", "src/a.ts": "a\n" } });
    write(repo.dir, "opencode.json", '{ "plugin": ["evil"] }\n');
    write(repo.dir, ".opencode/tool/t.ts", "evil\n");
    const data = dataHome();
    const { git, calls } = recordingGit();
    const result = await quarantineOpencodeCode(git, path.join(repo.dir, "src"), ["opencode.json", ".opencode/tool/t.ts", "src/a.ts"], {
      XDG_DATA_HOME: data,
    });
    expect(result?.paths).toEqual(["opencode.json", ".opencode/tool/t.ts"]);
    expect(path.dirname(result!.dir)).toBe(path.join(data, "otto", "quarantine"));
    expect(path.basename(result!.dir)).toMatch(
      new RegExp(`^${path.basename(repo.dir)}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}Z$`),
    );
    expect(fs.readFileSync(path.join(result!.dir, "opencode.json"), "utf8")).toContain("evil");
    expect(fs.readFileSync(path.join(result!.dir, ".opencode/tool/t.ts"), "utf8")).toBe("evil\n");
    expect(fs.readFileSync(path.join(repo.dir, "opencode.json"), "utf8")).toBe("{}\n");
    expect(fs.existsSync(path.join(repo.dir, ".opencode"))).toBe(true);
    expect(fs.existsSync(path.join(repo.dir, ".opencode/tool/t.ts"))).toBe(false);
    expect(calls.filter((c) => c[0] === "checkout")).toEqual([["checkout", "-q", "HEAD", "--", ":(literal)opencode.json"]]);
  });

  it("nothing to take: undefined, and no folder made", async () => {
    repo = await createRepo();
    const data = dataHome();
    expect(await quarantineOpencodeCode(recordingGit().git, repo.dir, ["src/a.ts"], { XDG_DATA_HOME: data })).toBeUndefined();
    expect(fs.readdirSync(data)).toEqual([]);
  });

  it("never through a link: a path below a linked folder stays where it is, and so does its target", async () => {
    repo = await createRepo();
    const outside = dataHome();
    write(outside, "plugin/mine.js", "// the user's\n");
    write(outside, "lib/.opencode/p.js", "// the user's too\n");
    fs.symlinkSync(outside, path.join(repo.dir, ".opencode"));
    fs.mkdirSync(path.join(repo.dir, "pkg"));
    fs.symlinkSync(path.join(outside, "lib"), path.join(repo.dir, "pkg", "lib"));
    const data = dataHome();
    const paths = [".opencode/plugin/mine.js", "pkg/lib/.opencode/p.js"];
    expect(await quarantineOpencodeCode(recordingGit().git, repo.dir, paths, { XDG_DATA_HOME: data })).toBeUndefined();
    expect(fs.readFileSync(path.join(outside, "plugin/mine.js"), "utf8")).toBe("// the user's\n");
    expect(fs.readFileSync(path.join(outside, "lib/.opencode/p.js"), "utf8")).toBe("// the user's too\n");
    // The link itself is moved, as a link.
    const result = await quarantineOpencodeCode(recordingGit().git, repo.dir, [".opencode"], { XDG_DATA_HOME: data });
    expect(result?.paths).toEqual([".opencode"]);
    expect(fs.readlinkSync(path.join(result!.dir, ".opencode"))).toBe(outside);
    expect(fs.readdirSync(outside).sort()).toEqual(["lib", "plugin"]);
  });

  it("ignored OpenCode files: those ignored before the run stay, by name or under a folder; new ones go", async () => {
    repo = await createRepo({ files: { ".gitignore": "opencode.json\nopencode.jsonc\n.opencode/\nsub/.opencode/\n" } });
    write(repo.dir, "opencode.json");
    write(repo.dir, "opencode.jsonc");
    write(repo.dir, ".opencode/p.js");
    write(repo.dir, "sub/.opencode/q.js");
    const data = dataHome();
    const result = await quarantineOpencodeCode(recordingGit().git, repo.dir, [], { XDG_DATA_HOME: data }, ["opencode.json", "sub/", "x/"]);
    expect(result?.paths.sort()).toEqual([".opencode", "opencode.jsonc"]);
    expect(fs.existsSync(path.join(repo.dir, "opencode.json"))).toBe(true);
    expect(fs.existsSync(path.join(repo.dir, "sub/.opencode/q.js"))).toBe(true);
    expect(fs.existsSync(path.join(repo.dir, ".opencode"))).toBe(false);
  });

  it("outside a repository, the folder given is the top", async () => {
    const dir = dataHome();
    write(dir, ".opencode/p.js");
    const data = dataHome();
    const result = await quarantineOpencodeCode(recordingGit().git, dir, [".opencode/p.js"], { XDG_DATA_HOME: data });
    expect(result?.paths).toEqual([".opencode/p.js"]);
    expect(fs.existsSync(path.join(result!.dir, ".opencode/p.js"))).toBe(true);
  });

  it("to another filesystem: a file is copied and removed, a link stays a link", async () => {
    if (!fs.existsSync("/dev/shm")) return;
    repo = await createRepo();
    write(repo.dir, ".opencode/p.js", "plugin\n");
    fs.symlinkSync("/etc/hostname", path.join(repo.dir, "opencode.json"));
    const data = dataHome("/dev/shm");
    const result = await quarantineOpencodeCode(recordingGit().git, repo.dir, [".opencode/p.js", "opencode.json"], { XDG_DATA_HOME: data });
    expect(fs.readFileSync(path.join(result!.dir, ".opencode/p.js"), "utf8")).toBe("plugin\n");
    expect(fs.readlinkSync(path.join(result!.dir, "opencode.json"))).toBe("/etc/hostname");
    expect(fs.existsSync(path.join(repo.dir, ".opencode/p.js"))).toBe(false);
    expect(fs.lstatSync(path.join(repo.dir, "opencode.json"), { throwIfNoEntry: false })).toBeUndefined();
  });

  it("moveOut, to another filesystem: a folder is copied whole, its links as they were written, then removed; the new folders are the user's alone", () => {
    if (!fs.existsSync("/dev/shm") || fs.statSync("/dev/shm").dev === fs.statSync(os.tmpdir()).dev) return;
    const from = dataHome();
    write(from, "hooks/pre-commit", "#!/bin/sh\n");
    fs.symlinkSync("pre-commit", path.join(from, "hooks", "post-commit"));
    const to = path.join(dataHome("/dev/shm"), "a", "b", "hooks");
    moveOut(path.join(from, "hooks"), to);
    expect(fs.readFileSync(path.join(to, "pre-commit"), "utf8")).toBe("#!/bin/sh\n");
    expect(fs.readlinkSync(path.join(to, "post-commit"))).toBe("pre-commit");
    expect(fs.existsSync(path.join(from, "hooks"))).toBe(false);
    expect(fs.statSync(path.dirname(to)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.dirname(path.dirname(to))).mode & 0o777).toBe(0o700);
  });
});
