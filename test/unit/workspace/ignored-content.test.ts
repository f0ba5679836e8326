import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { blobId, hashIgnoredFiles } from "../../../src/workspace/ignored-content.ts";

describe("hashIgnoredFiles", () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  const write = (file: string, content: string): void => {
    const full = path.join(root ?? "", file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
  };

  it("hashes ignored files and the files inside an ignored folder, never a dependency or build folder's", async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "otto-ignored-content-"));
    write(".env", "TOKEN=one\n");
    write("scratch/notes.txt", "db password two\n");
    write("scratch/deep/key.pem", "three\n");
    write("node_modules/pkg/secret.txt", "four\n");
    write("scratch/node_modules/x.js", "five\n");
    write("scratch/empty.txt", "  \n");
    const known = await hashIgnoredFiles(root, [".env", "scratch/", "node_modules/"], "sha1");
    expect(known[blobId(Buffer.from("TOKEN=one\n"))]).toBe(".env");
    expect(known[blobId(Buffer.from("db password two\n"))]).toBe("scratch/notes.txt");
    expect(known[blobId(Buffer.from("three\n"))]).toBe("scratch/deep/key.pem");
    expect(known[blobId(Buffer.from("four\n"))]).toBeUndefined();
    expect(known[blobId(Buffer.from("five\n"))]).toBeUndefined();
    expect(Object.keys(known)).toHaveLength(3);
  });
});
