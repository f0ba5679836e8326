import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findKnownSecrets, MAX_SCAN_BYTES, MIN_SCANNED_SECRET } from "../../../src/workspace/secret-scan.ts";
import { removeAfterTest } from "../../support/git.ts";

/* Before a commit, the files it would take are searched for the secrets otto knows. */

const TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJ";

function tree(files: Record<string, string | Buffer>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "otto-secret-scan-"));
  removeAfterTest(root);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  return root;
}

describe("findKnownSecrets", () => {
  it("names the files that hold a known secret, in the order given, and only those", async () => {
    const root = tree({ "b.txt": `x ${TOKEN} y`, "a/c.env": `KEY=${TOKEN}\n`, "clean.ts": "export const x = 1;\n" });
    expect(await findKnownSecrets(root, ["clean.ts", "b.txt", "a/c.env"], [TOKEN])).toEqual(["b.txt", "a/c.env"]);
    expect(await findKnownSecrets(root, ["a/c.env", "b.txt"], [TOKEN])).toEqual(["a/c.env", "b.txt"]);
  });

  it("any of several secrets, each file once", async () => {
    const other = "https://hooks.slack.com/services/T000/B000/XXXX";
    const root = tree({ "one.txt": other, "both.txt": `${TOKEN}\n${other}` });
    expect(await findKnownSecrets(root, ["one.txt", "both.txt"], [TOKEN, other, TOKEN])).toEqual(["one.txt", "both.txt"]);
  });

  it("a secret of MIN_SCANNED_SECRET characters is searched for, a shorter one is not", async () => {
    const exact = "p".repeat(MIN_SCANNED_SECRET);
    const root = tree({ "f.txt": `password ${exact}` });
    expect(await findKnownSecrets(root, ["f.txt"], [exact])).toEqual(["f.txt"]);
    expect(await findKnownSecrets(root, ["f.txt"], [exact.slice(1)])).toEqual([]);
    expect(await findKnownSecrets(root, ["f.txt"], [])).toEqual([]);
  });

  it("reads a file of exactly MAX_SCAN_BYTES, not a bigger one", async () => {
    const at = Buffer.alloc(MAX_SCAN_BYTES, 0x61);
    at.write(TOKEN, MAX_SCAN_BYTES - TOKEN.length);
    const over = Buffer.concat([at, Buffer.from("a")]);
    const root = tree({ "at.bin": at, "over.bin": over });
    expect(await findKnownSecrets(root, ["at.bin", "over.bin"], [TOKEN])).toEqual(["at.bin"]);
  });

  it("skips deleted paths, folders and links (a link is committed as its target's name, not read)", async () => {
    const root = tree({ "real.txt": TOKEN });
    fs.symlinkSync(path.join(root, "real.txt"), path.join(root, "link.txt"));
    fs.mkdirSync(path.join(root, "dir"));
    expect(await findKnownSecrets(root, ["gone.txt", "dir", "link.txt", "real.txt"], [TOKEN])).toEqual(["real.txt"]);
  });

  it("a secret with non-ASCII letters, compared as UTF-8 bytes", async () => {
    const secret = "pässwörd-ünïcode";
    const root = tree({ "u.txt": `v=${secret}` });
    expect(await findKnownSecrets(root, ["u.txt"], [secret])).toEqual(["u.txt"]);
  });
});
