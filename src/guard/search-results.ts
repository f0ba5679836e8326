import path from "node:path";

/*
 * OpenCode's `grep` and `glob` search a folder the guard allowed, in OpenCode's process, with
 * ripgrep's `--hidden`: a secret-named file there that git does not ignore (or that a planted
 * `.rgignore` un-ignores) would be searched and its lines shown. The read tool may not open such
 * a file (tool-paths.ts), so a search may not show it either: its results are dropped from the
 * output, and grep's match count is recounted so it says nothing about what was dropped.
 */

const GREP_HEAD = /^Found (\d+) matches(.*)$/;
const GREP_LINE = /^ {2}Line \d+: /;

/** A grep or glob result without the files `secretName` names; other tools' output as it is. */
export function withoutSecretResults(tool: string, output: string, secretName: (name: string) => boolean): string {
  const secret = (file: string): boolean => secretName(path.basename(file));
  if (tool === "glob")
    return (
      output
        .split("\n")
        .filter((line) => !(path.isAbsolute(line) && secret(line)))
        .join("\n") || "No files found"
    );
  if (tool !== "grep") return output;
  const lines = output.split("\n");
  const head = GREP_HEAD.exec(lines[0] ?? "");
  if (!head) return output;
  const groups: Array<{ file: string; lines: string[] }> = [];
  const tail: string[] = [];
  for (const line of lines.slice(1)) {
    const group = groups.at(-1);
    if (GREP_LINE.test(line) && group && tail.length === 0) group.lines.push(line);
    else if (line.endsWith(":") && path.isAbsolute(line) && tail.length === 0) groups.push({ file: line.slice(0, -1), lines: [] });
    else if (line !== "" || tail.length > 0) tail.push(line);
  }
  const kept = groups.filter((g) => !secret(g.file));
  if (kept.length === groups.length) return output;
  const count = kept.reduce((sum, g) => sum + g.lines.length, 0);
  if (count === 0) return "No files found";
  const body = kept.map((g) => [`${g.file}:`, ...g.lines].join("\n")).join("\n\n");
  return [`Found ${count} matches${head[2] ?? ""}`, body, ...(tail.length ? ["", ...tail] : [])].join("\n");
}
