import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import matter from "gray-matter";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { matterOptions, readMarkdownAsset } from "../../../src/core/index.ts";
import { parsePrDocument } from "../../../src/pr/store/document.ts";
import { parsePromptFile } from "../../../src/prompts/parse-prompt-file.ts";
import { readTrackedPrs } from "../../../src/repo/tracked-prs.ts";

// Front matter that, if evaluated, leaves a mark on the global object.
const FLAG = "__ottoFrontmatterEvaluated";
const js = (lang: string) => `---${lang}\n{ title: (globalThis.${FLAG} = true, "pwned") }\n---\nbody\n`;
const evaluated = () => (globalThis as Record<string, unknown>)[FLAG];

describe("front matter", () => {
  let dir: string;
  beforeEach(() => {
    delete (globalThis as Record<string, unknown>)[FLAG];
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-frontmatter-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("gray-matter evaluates ---js by default (what the options turn off)", () => {
    expect(matter(js("js"), {}).data).toEqual({ title: "pwned" });
    expect(evaluated()).toBe(true);
  });

  it.each(["js", "javascript", "JS", " javascript "])("refuses ---%s without evaluating it", (lang) => {
    expect(() => matter(js(lang), matterOptions())).toThrow(/JavaScript front matter/);
    expect(evaluated()).toBeUndefined();
  });

  it("still reads YAML and JSON front matter", () => {
    expect(matter("---\ntitle: hi\n---\nbody\n", matterOptions()).data).toEqual({ title: "hi" });
    expect(matter('---json\n{ "title": "hi" }\n---\nbody\n', matterOptions()).data).toEqual({ title: "hi" });
  });

  it("gives a fresh options object per call (gray-matter caches parses when given none)", () => {
    expect(matterOptions()).not.toBe(matterOptions());
  });

  it("is used by every reader of markdown with front matter", async () => {
    expect(() => parsePromptFile(js("js"), "override.md")).toThrow(/JavaScript front matter/);
    expect(() => parsePrDocument("github-o-r-1", js("js"))).toThrow(/JavaScript front matter/);
    fs.writeFileSync(path.join(dir, "agent.md"), js("javascript"));
    expect(() => readMarkdownAsset(dir, "agent")).toThrow(/JavaScript front matter/);
    fs.writeFileSync(path.join(dir, "github-o-r-1.md"), js("js"));
    expect(await readTrackedPrs(dir)).toEqual([]);
    expect(evaluated()).toBeUndefined();
  });
});
