import fs from "node:fs/promises";
import path from "node:path";
import { OttoError } from "../../../core/index.ts";

export interface CiFile {
  /** Relative to the repository's top level, with forward slashes. */
  path: string;
  text: string;
}

/**
 * Writes every file, or none: a file that exists already (a workflow the user may have edited) is
 * refused unless `force`, before anything is written. Nothing is staged or committed.
 */
export async function writeCiFiles(root: string, files: readonly CiFile[], force: boolean): Promise<void> {
  if (!force) {
    const present: string[] = [];
    for (const file of files) {
      if (
        await fs.lstat(path.join(root, file.path)).then(
          () => true,
          () => false,
        )
      )
        present.push(file.path);
    }
    if (present.length > 0) {
      throw new OttoError(
        "ci_file_exists",
        `${present.join(" and ")} ${present.length === 1 ? "exists" : "exist"} already; otto did not touch ${present.length === 1 ? "it" : "them"}.`,
        "Compare it with what otto would write, then run the command again with --force to replace it.",
      );
    }
  }
  for (const file of files) {
    const target = path.join(root, file.path);
    await fs.mkdir(path.dirname(target), { recursive: true });
    // A symlink in the way is replaced by a file, never followed out of the repository.
    await fs.rm(target, { force: true });
    await fs.writeFile(target, file.text, { flag: "wx" });
  }
}
