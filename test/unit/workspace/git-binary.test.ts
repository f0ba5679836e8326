import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitBinary } from "../../../src/workspace/git-binary.ts";
import { removeAfterTest } from "../../support/git.ts";

/*
 * Otto's own git (run outside the sandbox, with the user's credentials) is never one planted in the
 * tree sandboxed code writes: PATH entries inside it, or relative, are skipped.
 */

function folder(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-git-binary-")));
  removeAfterTest(dir);
  return dir;
}

function plant(dir: string, name = "git"): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, "#!/bin/sh\n", { mode: 0o755 });
  return file;
}

describe("gitBinary", () => {
  it("skips PATH entries inside the tree, relative and empty ones, and takes the first git outside", () => {
    const tree = folder();
    const outside = folder();
    const real = plant(path.join(outside, "bin"));
    plant(path.join(tree, ".venv", "bin"));
    plant(path.join(tree, "bin"));
    const PATH = ["", "bin", path.join(tree, ".venv", "bin"), path.join(tree, "bin"), path.join(outside, "bin")].join(path.delimiter);
    expect(gitBinary({ PATH }, tree)).toBe(real);
  });

  it("an entry that reaches the tree through a link, or spelled with '..', is inside it too", () => {
    const tree = folder();
    const outside = folder();
    const real = plant(path.join(outside, "real"));
    plant(path.join(tree, "bin"));
    fs.symlinkSync(path.join(tree, "bin"), path.join(outside, "link"));
    const PATH = [path.join(outside, "link"), `${path.join(tree, "sub")}/../bin`, path.join(outside, "real")].join(path.delimiter);
    expect(gitBinary({ PATH }, tree)).toBe(real);
  });

  it("a tree given through a link is judged by where it resolves", () => {
    const tree = folder();
    const links = folder();
    fs.symlinkSync(tree, path.join(links, "tree"));
    const outside = folder();
    const real = plant(path.join(outside, "bin"));
    plant(path.join(tree, "bin"));
    expect(gitBinary({ PATH: [path.join(tree, "bin"), path.join(outside, "bin")].join(path.delimiter) }, path.join(links, "tree"))).toBe(
      real,
    );
  });

  it("without a tree, the first git on PATH; a name with a slash as given; the bare name when none is found", () => {
    const a = folder();
    const first = plant(path.join(a, "one"));
    plant(path.join(a, "two"));
    const PATH = [path.join(a, "one"), path.join(a, "two")].join(path.delimiter);
    expect(gitBinary({ PATH }, undefined)).toBe(first);
    expect(gitBinary({ PATH }, undefined, "/usr/local/bin/git")).toBe("/usr/local/bin/git");
    expect(gitBinary({ PATH }, undefined, "hub")).toBe("hub");
    expect(gitBinary({}, undefined)).toBe("git");
    expect(gitBinary({ PATH: path.join(a, "one") }, a)).toBe("git");
  });

  it("a folder inside the tree whose name starts with two dots is inside it", () => {
    const tree = folder();
    const outside = folder();
    const real = plant(path.join(outside, "bin"));
    plant(path.join(tree, "..venv", "bin"));
    expect(gitBinary({ PATH: [path.join(tree, "..venv", "bin"), path.join(outside, "bin")].join(path.delimiter) }, tree)).toBe(real);
  });

  it("a relative PATH entry is skipped even where it leads to a git; a name with a slash is taken as given, not looked up", () => {
    const outside = folder();
    const real = plant(path.join(outside, "rel"));
    const second = plant(path.join(outside, "abs"));
    const relative = path.relative(process.cwd(), path.join(outside, "rel"));
    expect(fs.existsSync(path.join(relative, "git"))).toBe(true);
    expect(gitBinary({ PATH: [relative, path.join(outside, "abs")].join(path.delimiter) }, undefined)).toBe(second);
    expect(real).not.toBe(second);
    plant(path.join(outside, "abs", "sub"));
    expect(gitBinary({ PATH: path.join(outside, "abs") }, undefined, "sub/git")).toBe("sub/git");
  });

  it("a sibling folder whose name starts like the tree's is outside it", () => {
    const base = folder();
    const tree = path.join(base, "repo");
    fs.mkdirSync(tree);
    const sibling = plant(path.join(base, "repo-tools"));
    expect(gitBinary({ PATH: path.join(base, "repo-tools") }, tree)).toBe(sibling);
  });
});
