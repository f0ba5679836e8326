import fs from "node:fs";
import path from "node:path";

/**
 * A PATH of one folder, `<root>/bin-without`, with links to every program on this process's PATH
 * except `hidden`: how a test makes a machine without bubblewrap (detection reads PATH), with no
 * switch in otto's code.
 */
export function pathWithout(root: string, hidden: readonly string[]): string {
  const bin = path.join(root, "bin-without");
  fs.mkdirSync(bin, { recursive: true });
  for (const dir of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir)) {
      const link = path.join(bin, name);
      if (!hidden.includes(name) && !fs.existsSync(link)) fs.symlinkSync(path.join(dir, name), link);
    }
  }
  return bin;
}
