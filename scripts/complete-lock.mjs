/* global process, URL */
// The npm registry reachable from otto's machines does not serve other platforms' optional
// binaries (opencode-darwin-arm64 …), so `npm install` leaves them out of package-lock.json and
// `npm ci` then refuses the lock as out of sync. This adds the missing optional entries (version,
// os, cpu; nothing to download on this platform). Run it after any `npm install` that rewrites
// the lock: node scripts/complete-lock.mjs
import fs from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, "utf8"));
const platform = (name) => {
  const os = /darwin/.test(name) ? "darwin" : /win(dows|32)/.test(name) ? "win32" : "linux";
  const cpu = /arm64/.test(name) ? "arm64" : /-arm(\b|-|$)/.test(name) ? "arm" : "x64";
  return { os: [os], cpu: [cpu], ...(/musl/.test(name) ? { libc: ["musl"] } : {}) };
};
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const at = `node_modules/${dep}`;
    if (lock.packages[at]) continue;
    lock.packages[at] = { version, ...platform(dep), ...(entry.dev ? { dev: true } : {}), optional: true };
    added++;
    process.stdout.write(`added ${at}@${version} (for ${key})\n`);
  }
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
lock.packages = sorted;
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`${added} entries added\n`);
