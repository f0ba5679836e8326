/**
 * `entries` as git's command-line configuration passed in the environment (GIT_CONFIG_COUNT,
 * GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n), numbered after the entries `env` already passes, which
 * keep theirs. Returns the variables to add; command-line configuration outranks every file.
 */
export function gitConfigVars(
  env: Readonly<Record<string, string | undefined>>,
  entries: ReadonlyArray<readonly [string, string]>,
): Record<string, string> {
  const count = Number.parseInt(env.GIT_CONFIG_COUNT ?? "", 10);
  const n = Number.isFinite(count) && count > 0 ? count : 0;
  const out: Record<string, string> = { GIT_CONFIG_COUNT: String(n + entries.length) };
  entries.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${n + i}`] = key;
    out[`GIT_CONFIG_VALUE_${n + i}`] = value;
  });
  return out;
}
