import fs from "node:fs/promises";
import path from "node:path";
import { OttoError, PACKAGE_ROOT } from "../../../core/index.ts";

/** The versions a generated CI job installs: this otto, and the OpenCode it is tested with. */
export interface Pins {
  otto: string;
  opencode: string;
}

/** Exact versions only: a CI job that floats would run code nobody tested with this otto. */
const EXACT = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** Pure: otto's `version` and its pinned `opencode-ai` devDependency, from package.json's text. */
export function parsePins(text: string): Pins {
  const pkg = JSON.parse(text) as { version?: unknown; devDependencies?: Record<string, unknown> };
  const otto = pkg.version;
  const opencode = pkg.devDependencies?.["opencode-ai"];
  if (typeof otto !== "string" || !EXACT.test(otto) || typeof opencode !== "string" || !EXACT.test(opencode)) {
    throw new OttoError(
      "ci_pins",
      `otto's package.json has no exact version of otto (${String(otto)}) or of opencode-ai (${String(opencode)}).`,
      "Reinstall opencode-otto from npm; its package.json pins both.",
    );
  }
  return { otto, opencode };
}

/** otto's own package.json (published with the package: npm always includes it). */
export async function readPins(file: string = path.join(PACKAGE_ROOT, "package.json")): Promise<Pins> {
  return parsePins(await fs.readFile(file, "utf8"));
}
