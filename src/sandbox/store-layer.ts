import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PROBE_ARGS } from "./detect.ts";

/*
 * How the user's package stores appear inside the sandbox. A store is a cache a later build
 * outside trusts: a Gradle wrapper distribution in ~/.gradle/wrapper/dists, a crate's source in
 * ~/.cargo/registry/src, a module in Go's module cache, a tarball in npm's cache each run later
 * with the user's rights, outside any sandbox. So no run may change them: each store gets a layer
 * of its own for the run, and what a run writes there is gone when it ends.
 *
 * - `overlay` (bubblewrap 0.9 and later, where the kernel lets an unprivileged user namespace
 *   mount overlayfs): the user's store read-only under a writable tmpfs layer, so a run uses
 *   what the store holds and downloads the rest into its layer;
 * - `empty` (older bubblewrap, Debian 12's 0.8 among them, or overlayfs refused): an empty tmpfs
 *   in the store's place, so a run downloads what it installs.
 */

export type StoreLayer = "overlay" | "empty";

const probed = new Map<string, StoreLayer>();

/** Which layer `bwrap` can give the stores here: probed once per process and binary, by mounting one. */
export function storeLayer(bwrap: string): StoreLayer {
  let layer = probed.get(bwrap);
  if (!layer) {
    layer = probeOverlay(bwrap) ? "overlay" : "empty";
    probed.set(bwrap, layer);
  }
  return layer;
}

/** True when a write through a tmp-overlay of a folder lands in the layer and not in the folder. */
function probeOverlay(bwrap: string): boolean {
  let dir: string | undefined;
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-overlay-probe-"));
    const file = path.join(dir, "probe");
    const result = spawnSync(
      bwrap,
      [...PROBE_ARGS, "--overlay-src", dir, "--tmp-overlay", dir, "--", "/bin/sh", "-c", 'echo layer > "$1" && cat "$1"', "sh", file],
      { encoding: "utf8", timeout: 15_000, stdio: ["ignore", "pipe", "pipe"] },
    );
    return result.status === 0 && result.stdout.trim() === "layer" && !fs.existsSync(file);
  } catch {
    return false;
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}
