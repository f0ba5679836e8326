import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { archiveTarget } from "../../../src/build/index.ts";
import { OttoError } from "../../../src/core/index.ts";
import { tempRepoDir } from "./fixtures.ts";

const NOW = new Date("2026-11-21T10:00:00Z");
const CHANGE = { kind: "openspec" as const, name: "add-auth" };

/** A fake `openspec` on PATH: records its working directory and argv, exits with $OPENSPEC_EXIT. */
function fakeOpenspec(): { bin: string; argv: string } {
  const dir = tempRepoDir();
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  const script = path.join(bin, "openspec");
  fs.writeFileSync(
    script,
    '#!/bin/sh\n{ pwd; printf "%s\\n" "$@"; } > "$OPENSPEC_ARGV"\nif [ "$OPENSPEC_EXIT" != 0 ]; then echo "Change add-auth has 1 incomplete task" >&2; exit "$OPENSPEC_EXIT"; fi\necho "Change archived"\n',
  );
  fs.chmodSync(script, 0o755);
  return { bin, argv: path.join(dir, "argv.txt") };
}

describe("archiveTarget: OpenSpec changes", () => {
  it("runs `openspec archive <change> --yes` in the repository when the CLI is installed", async () => {
    const root = tempRepoDir();
    const cli = fakeOpenspec();
    const env = { PATH: `${cli.bin}${path.delimiter}${process.env.PATH ?? ""}`, OPENSPEC_ARGV: cli.argv, OPENSPEC_EXIT: "0" };
    expect(await archiveTarget(CHANGE, { repoRoot: root, now: () => NOW, env })).toEqual({
      archivedTo: "openspec/changes/archive (add-auth)",
    });
    expect(fs.readFileSync(cli.argv, "utf8").split("\n")).toEqual([fs.realpathSync(root), "archive", "add-auth", "--yes", ""]);
  });

  it("a failing CLI is an error that carries its exit code and output, and names the command to run", async () => {
    const root = tempRepoDir();
    const cli = fakeOpenspec();
    const env = { PATH: `${cli.bin}${path.delimiter}${process.env.PATH ?? ""}`, OPENSPEC_ARGV: cli.argv, OPENSPEC_EXIT: "2" };
    const error = await archiveTarget(CHANGE, { repoRoot: root, now: () => NOW, env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OttoError);
    expect(error).toMatchObject({
      code: "archive_failed",
      message: "openspec archive add-auth failed (exit 2): Change add-auth has 1 incomplete task",
      fix: "Run `openspec archive add-auth` yourself",
    });
  });

  it("without the CLI on PATH, the change stays and the note says how to archive it", async () => {
    const root = tempRepoDir();
    const empty = tempRepoDir();
    expect(await archiveTarget(CHANGE, { repoRoot: root, now: () => NOW, env: { PATH: empty } })).toEqual({
      note: "The openspec CLI is not installed, so the change was left in openspec/changes/add-auth: archive it with `openspec archive add-auth`.",
    });
  });
});
