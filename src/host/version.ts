import type { Logger } from "../core/log.ts";
import { getHealth, hasPrivateRoutes } from "../core/private-routes.ts";
import type { OpencodeClient } from "../core/runtime-types.ts";

/**
 * The oldest OpenCode otto supports: the plugin API it is written against (1.18; tested with the
 * version pinned as the `opencode-ai` devDependency). Stated in README.md.
 */
export const MIN_OPENCODE_VERSION = "1.18.29";

type Triple = [number, number, number];

/** "1.18.33" → [1, 18, 33]; undefined for anything else (dev builds, pre-releases, garbage). */
function parseVersion(version: string): Triple | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** The warning for a host older than `minimum`, or undefined (new enough, or a version otto cannot read). */
export function hostVersionWarning(host: string, minimum = MIN_OPENCODE_VERSION): string | undefined {
  const have = parseVersion(host);
  const need = parseVersion(minimum);
  if (!have || !need) return undefined;
  for (let i = 0; i < 3; i++) {
    if (have[i]! > need[i]!) return undefined;
    if (have[i]! < need[i]!) {
      return `otto needs OpenCode ${minimum} or newer, and this is OpenCode ${host}: some commands may fail. Upgrade with \`opencode upgrade\`.`;
    }
  }
  return undefined;
}

/**
 * Asks the host its version (GET /global/health answers `{ healthy, version }`; the plugin input
 * carries none) and logs a warning when it is older than otto supports. Fire and forget: it never
 * throws; a host without the route is simply not checked. Called on the first otto tool call and
 * when a detached watcher starts, never at load (the plugin's load makes no request).
 */
export function checkHostVersion(client: OpencodeClient, log: Logger): Promise<void> {
  if (!hasPrivateRoutes(client)) return Promise.resolve();
  return getHealth(client)
    .then((result) => {
      const version = (result?.data as { version?: unknown } | undefined)?.version;
      if (typeof version !== "string") return;
      const warning = hostVersionWarning(version);
      if (warning) log.log("warn", warning, { opencode: version, minimum: MIN_OPENCODE_VERSION });
    })
    .catch(() => undefined);
}
