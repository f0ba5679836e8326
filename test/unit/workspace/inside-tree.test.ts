import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyInside, lstatInside, makeParentsInside, removeInside } from "../../../src/workspace/inside-tree.ts";

/*
 * Otto's file work on a tree sandboxed code wrote never crosses a link (real files): a write
 * replaces the link by a folder, a read or a removal stops at it. The victim folder lives outside
 * /tmp (the sandbox replaces /tmp), under the home's .cache, as a real user's plugin folder would.
 */

let base = "";
let tree = "";
let victim = "";
beforeEach(() => {
  const cache = path.join(os.homedir(), ".cache");
  fs.mkdirSync(cache, { recursive: true });
  base = fs.mkdtempSync(path.join(cache, "otto-test-inside-"));
  tree = path.join(base, "tree");
  victim = path.join(base, "victim");
  fs.mkdirSync(tree);
  fs.mkdirSync(victim);
  fs.writeFileSync(path.join(victim, "keep.js"), "the user's\n");
  fs.symlinkSync(victim, path.join(tree, "plug"));
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

describe("paths under a tree sandboxed code wrote", () => {
  it("the control: a plain write and removal through the link reach the victim", () => {
    fs.writeFileSync(path.join(tree, "plug", "probe.js"), "x\n");
    expect(fs.existsSync(path.join(victim, "probe.js"))).toBe(true);
    fs.rmSync(path.join(tree, "plug", "probe.js"));
    expect(fs.existsSync(path.join(victim, "probe.js"))).toBe(false);
  });

  it("lstatInside stops at a link on the way, and does not follow the last one", async () => {
    expect(await lstatInside(tree, "plug/keep.js")).toBeUndefined();
    expect((await lstatInside(tree, "plug"))?.isSymbolicLink()).toBe(true);
    expect(await lstatInside(tree, "../victim/keep.js")).toBeUndefined();
  });

  it("removeInside does not delete through a link", async () => {
    await removeInside(tree, "plug/keep.js");
    expect(fs.readFileSync(path.join(victim, "keep.js"), "utf8")).toBe("the user's\n");
    await removeInside(tree, "plug");
    expect(fs.existsSync(path.join(tree, "plug"))).toBe(false);
    expect(fs.readFileSync(path.join(victim, "keep.js"), "utf8")).toBe("the user's\n");
  });

  it("makeParentsInside and copyInside replace the link by a folder: nothing is written or replaced outside", async () => {
    const from = path.join(base, "from");
    fs.mkdirSync(path.join(from, "plug"), { recursive: true });
    fs.writeFileSync(path.join(from, "plug", "evil.js"), "evil\n");
    fs.writeFileSync(path.join(from, "plug", "keep.js"), "replaced\n");
    expect(await copyInside(from, tree, "plug/evil.js")).toBe(true);
    expect(await copyInside(from, tree, "plug/keep.js")).toBe(true);
    expect(fs.lstatSync(path.join(tree, "plug")).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(tree, "plug", "evil.js"), "utf8")).toBe("evil\n");
    expect(fs.readdirSync(victim)).toEqual(["keep.js"]);
    expect(fs.readFileSync(path.join(victim, "keep.js"), "utf8")).toBe("the user's\n");
    expect(await makeParentsInside(tree, "plug/deeper/x")).toBe(path.join(tree, "plug", "deeper"));
  });

  it("copyInside reads nothing through a link in the source, and copies a link as a link", async () => {
    const to = path.join(base, "to");
    fs.mkdirSync(to);
    expect(await copyInside(tree, to, "plug/keep.js")).toBe(false);
    expect(fs.existsSync(path.join(to, "plug"))).toBe(false);
    expect(await copyInside(tree, to, "plug")).toBe(true);
    expect(fs.readlinkSync(path.join(to, "plug"))).toBe(victim);
  });
});
