import { spawnSync } from "node:child_process";
import { onPath, PROBE_ARGS } from "./detect.ts";

/*
 * The sandbox's network. `open` means the internet, not the host: a sandboxed command shares no
 * network namespace with the user's machine, so the host's loopback (a passwordless `opencode
 * serve`, the user's TUI server, a local database) is out of reach unless `sandbox_access.
 * allow_ports` lists the port. bubblewrap gives the command a namespace of its own
 * (`--unshare-net`), and pasta (Debian's and Fedora's `passt` package, what rootless Podman uses)
 * connects it to the outside with user-mode networking, `--no-map-gw` so the host's own addresses
 * are not mapped in, and `-T <ports>` for the allowed ones.
 *
 * bubblewrap starts first and writes its child's pid to `--info-fd`; a few lines of shell start
 * pasta on that pid, then write a line to a FIFO the command reads inside before it starts. When pasta cannot start, the command runs with no network at all (fail closed), and
 * says so. Without pasta on the machine, `open` falls back to the host's network (the line
 * `/otto-config show` prints says so).
 */

const usable = new Map<string, boolean>();

/**
 * pasta on PATH when it can join a sandbox's namespace here, or undefined. Probed once per process
 * and binary: some systems let bubblewrap make a namespace pasta cannot then enter (an unprivileged
 * user in a container), and there `open` keeps the host's network rather than no network at all.
 */
export function findPasta(PATH: string): string | undefined {
  const pasta = onPath("pasta", PATH);
  const bwrap = onPath("bwrap", PATH);
  if (!pasta || !bwrap) return undefined;
  if (!usable.has(pasta)) {
    const probe = withOwnNetwork(pasta, [], [bwrap, ...PROBE_ARGS, "--", "/bin/sh", "-c", "cat /proc/net/route"]);
    const result = spawnSync(probe[0] ?? "/bin/sh", probe.slice(1), {
      encoding: "utf8",
      timeout: 15_000,
      stdio: ["ignore", "pipe", "pipe"],
    });
    // A default route: destination 0.0.0.0 (a link route's gateway and mask are zeros too).
    usable.set(
      pasta,
      result.status === 0 && !/could not be set up/.test(result.stderr ?? "") && /^[^\t]*\t00000000\t/m.test(result.stdout ?? ""),
    );
  }
  return usable.get(pasta) ? pasta : undefined;
}

/** Where the command waits inside for pasta (a FIFO bound on bubblewrap's own /dev), and the placeholder the script fills. */
const READY_INSIDE = "/dev/.otto-net";
const READY_PLACEHOLDER = "@otto-net-ready@";

const NET_SCRIPT = [
  "pasta=$1; ports=$2; shift 2",
  'dir=$(mktemp -d "${TMPDIR:-/tmp}/otto-net.XXXXXX") || exit 125',
  'ready="$dir/ready"; tab=$(printf "\\t")',
  'mkfifo "$ready" || exit 125',
  // Held open here, so the helper's write never waits for a reader that is gone.
  'exec 4<>"$ready"',
  `n=$#; for a in "$@"; do [ "$a" = "${READY_PLACEHOLDER}" ] && a=$ready; set -- "$@" "$a"; done; shift "$n"`,
  "(",
  "  i=0; pid=",
  '  while [ -z "$pid" ] && [ "$i" -lt 500 ]; do',
  '    pid=$(sed -n \'s/.*"child-pid": *\\([0-9][0-9]*\\).*/\\1/p\' "$dir/info" 2>/dev/null); i=$((i + 1))',
  '    [ -n "$pid" ] || sleep 0.01',
  "  done",
  "  ok=",
  '  if [ -n "$pid" ]; then',
  "    set -- --config-net --quiet --foreground --no-map-gw -U none -u none -t none",
  '    if [ -n "$ports" ]; then set -- "$@" -T "$ports"; else set -- "$@" -T none; fi',
  '    if [ "$(id -u)" = 0 ]; then set -- "$@" --runas 0; else set -- "$@" --userns "/proc/$pid/ns/user"; fi',
  // In the foreground, in this process group: it dies with the command's group, and is stopped
  // below when the command ends. Ready once the namespace has a default route. The namespace opens
  // to pasta once bubblewrap's child has started the waiting shell: a failed start is tried again.
  "    tries=0",
  '    while [ -z "$ok" ] && [ "$tries" -lt 50 ]; do',
  '      "$pasta" "$@" --netns "/proc/$pid/ns/net" </dev/null >/dev/null 2>&1 &',
  '      p=$!; echo "$p" > "$dir/pasta.pid"; k=0',
  '      while [ "$k" -lt 300 ] && kill -0 "$p" 2>/dev/null; do',
  '        if grep -q "^[^$tab]*${tab}00000000$tab" "/proc/$pid/net/route" 2>/dev/null || grep "^0\\{32\\} 00 " "/proc/$pid/net/ipv6_route" 2>/dev/null | grep -qv " lo$"; then ok=1; break; fi',
  "        k=$((k + 1)); sleep 0.01",
  "      done",
  '      [ -n "$ok" ] || { kill "$p" 2>/dev/null; tries=$((tries + 1)); sleep 0.02; }',
  "    done",
  "  fi",
  '  [ -n "$ok" ] || echo "otto: the sandbox\'s network could not be set up (pasta failed); this command runs without a network." >&2',
  '  echo go > "$ready"',
  ") 4<&- &",
  '"$@" 3>"$dir/info" 4<&-',
  "rc=$?",
  '[ -f "$dir/pasta.pid" ] && kill "$(cat "$dir/pasta.pid")" 2>/dev/null',
  "wait",
  'rm -rf "$dir"',
  "exit $rc",
].join("\n");

/**
 * `bwrapArgv` ([bwrap, …its arguments]) wrapped so that the command gets a network namespace of
 * its own connected through pasta; `ports` are the host's loopback ports it may reach.
 */
export function withOwnNetwork(pasta: string, ports: readonly number[], bwrapArgv: readonly string[]): string[] {
  const [bwrap, ...rest] = bwrapArgv;
  const at = rest.indexOf("--");
  const args = at < 0 ? rest : rest.slice(0, at);
  const command = at < 0 ? [] : rest.slice(at + 1);
  // Inside, the command starts once pasta has joined (or given up): one line read from the FIFO.
  const wait = ["/bin/sh", "-c", `read -r _ < ${READY_INSIDE}; exec "$@"`, "otto-net-wait", ...command];
  return [
    "/bin/sh",
    "-c",
    NET_SCRIPT,
    "otto-net",
    pasta,
    ports.join(","),
    bwrap ?? "bwrap",
    "--unshare-net",
    "--info-fd",
    "3",
    ...args,
    "--ro-bind",
    READY_PLACEHOLDER,
    READY_INSIDE,
    "--",
    ...wait,
  ];
}
