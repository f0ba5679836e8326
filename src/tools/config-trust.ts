import {
  configError,
  gatedDigest,
  gatedValues,
  isSecretKey,
  listTrustedRepos,
  locateConfigFiles,
  parseConfigText,
  parseKeyPath,
  TRUST_GATED_KEYS,
  trustFile,
  trustRepo,
  untrustRepo,
} from "../config/index.ts";
import { OttoError, maskSecret, readTextIfExists, redact } from "../core/index.ts";
import type { CommandContext, Verb } from "./command.ts";

const GATED = TRUST_GATED_KEYS.map((k) => k.join(".")).join(", ");

/** A gated value as shown to the person deciding: webhook URLs are secrets, so only their host shows. */
function showGated(key: string, value: unknown): string {
  if (Array.isArray(value)) return value.map((item, i) => showGated(`${key}[${i}]`, item)).join("\n");
  if (value !== null && typeof value === "object") {
    return Object.entries(value)
      .map(([k, v]) => showGated(`${key}.${k}`, v))
      .join("\n");
  }
  if (isSecretKey(parseKeyPath(key)) && typeof value === "string") {
    let host = "";
    try {
      host = ` (host ${new URL(value).host})`;
    } catch {
      // not a URL: the mask alone
    }
    return `  ${key}: ${maskSecret(value)}${host}`;
  }
  return `  ${key}: ${redact(JSON.stringify(value))}`;
}

async function repoOf(ctx: CommandContext): Promise<{ root: string; file: string }> {
  const files = await locateConfigFiles({ directory: ctx.runtime.directory, env: ctx.runtime.env });
  if (!files.repo || !files.repoRoot) {
    throw new OttoError(
      "not_a_repository",
      `${ctx.runtime.directory} is not inside a git repository: there is no repo config to trust.`,
      "Run the command in the repository whose .otto/otto.jsonc you want otto to use.",
    );
  }
  return { root: files.repoRoot, file: files.repo };
}

/**
 * /otto-config trust: lets this repo's `.otto/otto.jsonc` choose where otto sends tokens and
 * notifications (TRUST_GATED_KEYS), with the values it has now. The list is the user's own file.
 */
export const trustVerb: Verb = {
  path: ["trust"],
  args: "[--revoke] [--list]",
  summary: `Trust this repo's config to set ${GATED} (the values it has now); --revoke, --list`,
  options: { revoke: { type: "boolean" }, list: { type: "boolean" } },
  async run({ values }, ctx) {
    const { env } = ctx.runtime;
    if (values.list === true) {
      const repos = await listTrustedRepos(env);
      if (repos.length === 0) return `No trusted repos (${trustFile(env)}).`;
      return [`Trusted repos (${trustFile(env)}):`, ...repos.map((r) => `- ${r.root} (since ${r.at})`)].join("\n");
    }
    const { root, file } = await repoOf(ctx);
    if (values.revoke === true) {
      const removed = await untrustRepo(env, root);
      return removed
        ? `${root} is no longer trusted: otto ignores ${GATED} from ${file} again.`
        : `${root} was not trusted; nothing changed.`;
    }
    const text = await readTextIfExists(file);
    if (text === undefined) return `${file} does not exist: nothing to trust.`;
    const parsed = parseConfigText(text, { file, scope: "repo" });
    if (!parsed.value) throw configError(parsed.problems);
    const gated = gatedValues(parsed.value);
    const keys = Object.keys(gated);
    if (keys.length === 0) return `${file} sets none of ${GATED}: nothing needs trust.`;
    await trustRepo(env, root, gatedDigest(gated));
    return [
      `Trusted ${root}. otto now uses these values from ${file}:`,
      ...keys.map((k) => showGated(k, gated[k])),
      "If the repo changes any of them, otto ignores them again until you run /otto-config trust once more.",
    ].join("\n");
  },
};
