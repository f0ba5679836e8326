import { open } from "node:fs/promises";

/**
 * The first `maxBytes` of a file as UTF-8, or `undefined` when it cannot be read or looks
 * binary (a NUL byte early on). Never reads more than `maxBytes`, however large the file.
 */
export async function readHead(path: string, maxBytes: number): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, "r");
    const buffer = Buffer.alloc(maxBytes);
    const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
    const head = buffer.subarray(0, bytesRead);
    if (head.subarray(0, 1024).includes(0)) return undefined;
    return head.toString("utf8");
  } catch {
    // Unreadable files (removed since listing, permissions, a submodule directory) are skipped.
    return undefined;
  } finally {
    await handle?.close();
  }
}
