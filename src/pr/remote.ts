import { remoteUrl } from "../repo/index.ts";

/*
 * What the PR features need from src/repo: the normalised form of a remote URL (one spelling
 * per repository) and the origin of the current directory.
 */
export { normalizeRemoteUrl } from "../repo/index.ts";

/** The origin URL of the repository holding `directory`; undefined outside one (never throws). */
export async function originUrl(directory: string): Promise<string | undefined> {
  try {
    return await remoteUrl(directory);
  } catch {
    return undefined;
  }
}
