import { remoteUrl } from "../workspace/index.ts";

/*
 * The origin of the current directory, for the PR features.
 */

/** The origin URL of the repository holding `directory`; undefined outside one (never throws). */
export async function originUrl(directory: string): Promise<string | undefined> {
  try {
    return await remoteUrl(directory);
  } catch {
    return undefined;
  }
}
