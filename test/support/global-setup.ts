import fs from "node:fs";
import { ensureConfigTemplate, pruneTemplates, serversDirOf, templateDir } from "./opencode-env.ts";

/**
 * Runs once per `vitest run`, before any worker: installs OpenCode's plugin dependencies into the
 * shared config template (see opencode-env.ts), so no e2e test pays the ~6 s npm install.
 * A failure does not stop the run: unit tests do not need OpenCode, and createWorkspace retries
 * the install and reports the error in the test that needs it.
 */
export default async function setup(): Promise<() => void> {
  const started = Date.now();
  try {
    pruneTemplates();
    await ensureConfigTemplate();
    const took = Date.now() - started;
    if (took > 1_000) console.log(`otto e2e: built the OpenCode config template in ${took} ms at ${templateDir()}`);
  } catch (error) {
    console.warn(`otto e2e: could not prepare the OpenCode config template: ${error instanceof Error ? error.message : String(error)}`);
  }
  // The workers' pooled servers are gone by now (killed as each worker ended): their folders go too.
  return () => fs.rmSync(serversDirOf(process.pid), { recursive: true, force: true });
}
