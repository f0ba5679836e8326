/*
 * The guard's half of the `~/` finding (test/attack/tilde-path.test.ts is the end-to-end one):
 * what pathRefusal says for the spellings a session uses once `<tree>/~` links somewhere.
 * OpenCode (1.18.33 read/write/edit) opens `<tree>/~/x` for `~/x`: it never expands `~`.
 * Run: npx tsx scripts/attack/tilde-guard.ts
 */
import fs from "node:fs";
import path from "node:path";
import { credentialPaths, isSecretName } from "../../src/sandbox/index.ts";
import { configPaths, pathRefusal } from "../../src/guard/tool-paths.ts";
import { lab, verdict } from "./lib.ts";

const l = lab("tilde-guard");
// The path as session-guard.ts hands it to pathRefusal (it used to expand `~/` to the home; now as written).
const asGuardSees = (file: string) => file;
const tilde = path.join(l.repo, "~");
for (const write of [true, false]) {
  const context = { tree: l.repo, hidden: credentialPaths(l.env), config: configPaths(l.env), write, secretName: isSecretName };
  for (const [file, target, opens] of [
    ["~/.bashrc", l.home, "<tree>/~ -> $HOME: ~/.bashrc"],
    ["~/.gitconfig", l.home, "<tree>/~ -> $HOME: ~/.gitconfig (core.fsmonitor for every repository)"],
    ["~/plugin/x.js", path.join(l.home, ".config", "opencode"), "<tree>/~ -> ~/.config/opencode: a global OpenCode plugin"],
    ["~/auth.json", path.join(l.home, ".local", "share", "opencode"), "<tree>/~ -> ~/.local/share/opencode: the provider keys"],
  ] as const) {
    // What the sandboxed `ln -s … '~'` leaves in the tree before the file tool's call.
    fs.rmSync(tilde, { force: true });
    fs.mkdirSync(target, { recursive: true });
    fs.symlinkSync(target, tilde);
    const refusal = pathRefusal(asGuardSees(file), context, file);
    verdict(`${write ? "write" : "read"} ${file}`, refusal === undefined, refusal ?? `allowed; OpenCode opens ${opens}`);
  }
}
