import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createPrStore } from "../../../../src/pr/index.ts";
import { newDocument } from "../../../../src/pr/commands/add.ts";
import { samplePr } from "../sample-pr.ts";
import { useTempDir } from "../support.ts";
import { appendNote, notesOf } from "./notes.ts";

const tempDir = useTempDir();
const KEY = "github-octo-app-42";
const WRITER = path.join(import.meta.dirname, "store-writer.ts");

async function storeWithDoc() {
  const dir = tempDir();
  const store = createPrStore(dir);
  expect(await store.create(newDocument(samplePr(), KEY, 5, "2026-02-06T10:00:00.000Z"))).toBe(true);
  return { dir, store };
}

const expected = (writers: number, each: number, tag = "w") =>
  Array.from({ length: writers }, (_, w) => Array.from({ length: each }, (_, i) => `${tag}${w}-${i}`))
    .flat()
    .sort();

describe("PR store under concurrent writers", () => {
  it("loses no update when 10 writers do 20 read-modify-writes each at once", async () => {
    const { dir, store } = await storeWithDoc();
    await Promise.all(
      Array.from({ length: 10 }, async (_, w) => {
        for (let i = 0; i < 20; i++) await store.update(KEY, (doc) => appendNote(doc, `w${w}-${i}`));
      }),
    );
    const doc = await store.read(KEY);
    expect(doc?.data.fix_attempts).toBe(200);
    expect(notesOf(doc).sort()).toEqual(expected(10, 20));
    // Written atomically: no temp file or lock directory left behind.
    expect(fs.readdirSync(dir)).toEqual([`${KEY}.md`]);
  });

  it("loses no update across processes (the watcher and a command in two OpenCodes)", async () => {
    const { dir, store } = await storeWithDoc();
    const run = promisify(execFile);
    await Promise.all(
      Array.from({ length: 4 }, (_, w) =>
        run(process.execPath, ["--import", "tsx", WRITER, dir, KEY, `p${w}`, "15"], { cwd: import.meta.dirname }),
      ),
    );
    const doc = await store.read(KEY);
    expect(doc?.data.fix_attempts).toBe(60);
    expect(notesOf(doc).sort()).toEqual(expected(4, 15, "p"));
    expect(fs.readdirSync(dir)).toEqual([`${KEY}.md`]);
  }, 60_000);
});
