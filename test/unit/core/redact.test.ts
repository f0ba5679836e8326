import { describe, expect, it } from "vitest";
import { maskSecret, REDACTED, redact, redactDeep } from "../../../src/core/redact.ts";

const JWT =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

describe("redact", () => {
  it.each([
    "xoxb-123456789012-abcdefghijkl",
    "xoxp-123456789012-abcdefghijkl",
    "xoxa-2-123456789012-abcdefghijkl",
    "xoxc-123456789012-abcdefghijkl",
    "xoxd-abcdefghijkl1234567890",
    "xoxs-123456789012-abcdefghijkl",
    "xoxe-1-abcdefghijkl1234567890",
    "xoxe.xoxp-1-abcdefghijkl1234567890",
    "xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef",
  ])("redacts the Slack token %s", (token) => {
    const out = redact(`token ${token} (end)`);
    expect(out).toBe(`token ${REDACTED} (end)`);
  });

  it.each([
    ["a GitHub classic token", "ghp_0123456789abcdefghijABCDEFGHIJ012345"],
    ["a GitHub fine-grained token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"],
    ["a JWT", JWT],
    ["a GitLab token", "glpat-xYz0123456789abcdEFGH"],
    ["an npm token", "npm_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["a Google API key", "AIzaSyA1234567890abcdefghijklmnopqrstuv"],
    ["an AWS access key id", "AKIAIOSFODNN7EXAMPLE"],
    ["an OpenAI key", "sk-proj-abcdefghijklmnopqrstuvwxyz012345"],
  ])("redacts %s", (_, token) => {
    expect(redact(`see ${token} here.`)).toBe(`see ${REDACTED} here.`);
  });

  it("redacts the credentials of a URL and keeps its scheme and host", () => {
    expect(redact("clone https://alice:s3cr3t@git.example.com/org/repo.git now")).toBe(
      `clone https://${REDACTED}@git.example.com/org/repo.git now`,
    );
    expect(redact("postgres://app:p%40ss@db:5432/x")).toBe(`postgres://${REDACTED}@db:5432/x`);
    expect(redact("https://x-access-token:ghs_0123456789abcdefghijABCDEFGHIJ@github.com/o/r")).toBe(`https://${REDACTED}@github.com/o/r`);
  });

  it("keeps URLs without credentials, a user alone and a port", () => {
    const text = "https://github.com/o/r/pull/1 https://alice@example.com ssh://git@host:22/r http://127.0.0.1:8080/x";
    expect(redact(text)).toBe(text);
  });

  it.each([
    ["Authorization: token abcdef0123456789", `Authorization: token ${REDACTED}`],
    ["authorization: Bearer abc.def.ghi-0123456789", `authorization: Bearer ${REDACTED}`],
    ['-H "Authorization: Basic OnNlY3JldHBhdDEyMzQ="', `-H "Authorization: Basic ${REDACTED}"`],
    ["Authorization: s3cr3tvalue", `Authorization: ${REDACTED}`],
  ])("redacts the header %s", (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it("redacts whole PEM and PGP private key blocks", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----";
    const pgp = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----";
    expect(redact(`a\n${pem}\nb\n${pgp}\nc`)).toBe(`a\n${REDACTED}\nb\n${REDACTED}\nc`);
    expect(redact("x -----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0 cut off")).toBe(`x ${REDACTED}`);
  });

  it("redacts a private key's body read without its BEGIN line, and keeps the text around it", () => {
    const line = (head: string) => `${head}${"QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".repeat(3)}`.slice(0, 64);
    const rsa = [line("MIIEpAIBAAKCAQEA"), line("x1zR"), line("y2aS"), "c3Rhcg=="];
    // From the second line, with END: back from END, the short last line included.
    expect(redact(`Done\n${rsa.join("\n")}\n-----END RSA PRIVATE KEY-----\nafter`)).toBe(`Done\n${REDACTED}\nafter`);
    // From the third line: no marker, END alone finds it; a log's prefix glued to the first piece stays.
    expect(redact(`[log] ${rsa.slice(1).join("\n")}\n-----END RSA PRIVATE KEY-----`)).toBe(`[log] ${REDACTED}`);
    // Lines a log joined into one.
    expect(redact(`12:00 ${rsa.slice(1).join(" ")} -----END RSA PRIVATE KEY----- done`)).toBe(`12:00 ${REDACTED} done`);
    // Neither BEGIN nor END: the key's first bytes start it; the prose after it stays.
    expect(redact(`cut: ${rsa.slice(0, 3).join("\n")}\nnext`)).toBe(`cut: ${REDACTED}\nnext`);
    expect(redact(`ssh: b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n${line("AAAB")}\nok`)).toBe(`ssh: ${REDACTED}\nok`);
    // Glued to a quote: the run alone.
    expect(redact(`{"k": "MHcCAQEEIJ8rJuFhP9GnEedHluam", "n": 1}`)).toBe(`{"k": "${REDACTED}", "n": 1}`);
    // A public key's END, a certificate and plain base64 stay.
    const cert = `-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIUQ2Z5\n-----END CERTIFICATE-----`;
    expect(redact(cert)).toBe(cert);
  });

  it("redacts a token used as a URL's user name, and keeps user names", () => {
    expect(redact("https://ghp_UrLuSeRn4meT0kenV4lue0123456789ab@github.com/o/r.git")).toBe(`https://${REDACTED}@github.com/o/r.git`);
    const pat = "q7k2m4q9z3w8r5t6y1u0p2o4i6l8j5h3g7f9d1s2a4c6v8b0n5e3";
    expect(redact(`git remote add origin https://${pat}@dev.azure.com/org/p/_git/r`)).toBe(
      `git remote add origin https://${REDACTED}@dev.azure.com/org/p/_git/r`,
    );
    // A digit anywhere makes a long user name a token, the first one as well as the last.
    const late = "zxcvbnmasdfghjklqwertyuiopmnbv4";
    expect(redact(`https://${late}@dev.azure.com/org`)).toBe(`https://${REDACTED}@dev.azure.com/org`);
    // Long without a digit: a name, kept.
    const names =
      "https://git@github.com/o/r https://myorganization@dev.azure.com/myorganization/p https://dana.developer@example.com https://firstname.middlename.lastname@example.com";
    expect(redact(names)).toBe(names);
  });

  it.each([
    ['"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', `"SecretAccessKey": "${REDACTED}"`],
    ["password=hunter2", `password=${REDACTED}`],
    ["DB_PASSWORD='correct horse battery'", `DB_PASSWORD='${REDACTED}'`],
    ["client_secret: 9f8e7d6c5b4a", `client_secret: ${REDACTED}`],
    ["aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", `aws_secret_access_key = ${REDACTED}`],
    ["https://api.example.com/x?api_key=abc123&page=2", `https://api.example.com/x?api_key=${REDACTED}&page=2`],
    ["export GITHUB_TOKEN=abcdef", `export GITHUB_TOKEN=${REDACTED}`],
    ["  api-key: 'k-12345'", `  api-key: '${REDACTED}'`],
  ])("redacts the value of %s and keeps the key", (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it.each([
    "max_tokens=4096",
    "token_count: 12",
    "the password: required for login",
    "password: string;",
    "token: z.string().optional(),",
    "if (token === other) return;",
    "password=${{ secrets.DB_PASSWORD }}",
    "password=$DB_PASSWORD",
    'token: "${{ secrets.GITHUB_TOKEN }}"',
    "password=<your password>",
    "tokens = tokenize(text)",
  ])("leaves %s alone", (text) => {
    expect(redact(text)).toBe(text);
  });

  it("leaves git shas, UUIDs, base64 data and ordinary prose alone", () => {
    const sha = "3f9c2a1b7e4d5c6f8a9b0c1d2e3f4a5b6c7d8e9f";
    const uuid = "123e4567-e89b-12d3-a456-426614174000";
    const image = `data:image/png;base64,${"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==".repeat(4)}`;
    const prose = "The skeleton of the task-runner ships in sk-8 release, see xoxo-gossip and the xapp- prefix.";
    const text = [sha, uuid, image, prose, "commit abc1234", "eyJhbGciOi alone"].join("\n");
    expect(redact(text)).toBe(text);
  });

  it("redacts known secrets of any length from 3 characters, longest first, URL-encoded and as Basic credentials", () => {
    expect(redact("pw is abc and abcdef", ["abc", "abcdef"])).toBe(`pw is ${REDACTED} and ${REDACTED}`);
    expect(redact("p%40ss and p@ss", ["p@ss"])).toBe(`${REDACTED} and ${REDACTED}`);
    const basic = Buffer.from(":adopat123").toString("base64");
    expect(redact(`header ${basic}`, ["adopat123"])).toBe(`header ${REDACTED}`);
  });

  describe("a known secret in other forms", () => {
    const SECRET = "s3cr3t-Value/with+Bits?";
    const b64 = (bytes: Buffer, urlSafe = false, pad = true): string => {
      const out = bytes.toString(urlSafe ? "base64url" : "base64");
      if (urlSafe) return pad ? out.padEnd(Math.ceil(out.length / 4) * 4, "=") : out;
      return pad ? out : out.replace(/=+$/, "");
    };
    /** The secret's bits a text still carries: any 6 consecutive bytes of it, found by decoding. */
    const leaks = (text: string): boolean => {
      const runs = text.match(/[A-Za-z0-9+/_-]{4,}/g) ?? [];
      for (const run of runs) {
        for (let start = 0; start < 4; start++) {
          const decoded = Buffer.from(run.slice(start).replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("latin1");
          for (let i = 0; i + 6 <= SECRET.length; i++) if (decoded.includes(SECRET.slice(i, i + 6))) return true;
        }
      }
      return false;
    };

    it.each([
      ["standard, padded", false, true],
      ["standard, unpadded", false, false],
      ["URL-safe, padded", true, true],
      ["URL-safe, unpadded", true, false],
    ])("redacts it in base64 (%s) at each of the three byte alignments inside a longer blob", (_, urlSafe, pad) => {
      for (const before of ["", "x", "xy"]) {
        for (const after of ["", "!", "!?", "!?#"]) {
          const blob = b64(Buffer.from(`${"header-bytes-".repeat(3)}${before}${SECRET}${after}${"-trailer".repeat(3)}`), urlSafe, pad);
          const alone = b64(Buffer.from(`${before}${SECRET}${after}`), urlSafe, pad);
          for (const text of [`data: ${blob} end`, `value=${alone}`]) {
            const out = redact(text, [SECRET]);
            expect(out, `${text} -> ${out}`).toContain(REDACTED);
            expect(leaks(out), `${text} -> ${out}`).toBe(false);
          }
        }
      }
    });

    it("keeps the base64 around it", () => {
      const head = Buffer.from("a long header of plain bytes, ").toString("base64");
      const out = redact(`${head}${Buffer.from(SECRET).toString("base64")}`, [SECRET]);
      expect(out.startsWith(head.slice(0, -4))).toBe(true);
    });

    it("redacts it in hex, lower and upper case", () => {
      const hex = Buffer.from(SECRET).toString("hex");
      expect(redact(`bytes ${hex} and ${hex.toUpperCase()} and 0x${hex}`, [SECRET])).toBe(
        `bytes ${REDACTED} and ${REDACTED} and 0x${REDACTED}`,
      );
    });

    it.each([
      ["zero width space", "\u200B"],
      ["zero width non-joiner", "\u200C"],
      ["zero width joiner", "\u200D"],
      ["word joiner", "\u2060"],
      ["byte order mark", "\uFEFF"],
      ["soft hyphen", "\u00AD"],
    ])("redacts it split by the %s", (_, char) => {
      const split = Array.from(SECRET).join(char);
      expect(redact(`token ${split} end`, [SECRET])).toBe(`token ${REDACTED} end`);
      // Several of them, only some gaps, mixed with the others.
      const mixed = Array.from(SECRET)
        .map((c, i) => (i % 3 === 0 ? `${c}${char}${char}\u200B` : c))
        .join("");
      expect(redact(`[${mixed}]`, [SECRET])).toBe(`[${REDACTED}]`);
    });

    it("leaves short secrets' encodings alone (they would match random data) and leaves other base64 and hex alone", () => {
      const sha = "3f9c2a1b7e4d5c6f8a9b0c1d2e3f4a5b6c7d8e9f";
      const image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
      const text = `${sha} ${image} ${Buffer.from("abc").toString("hex")}`;
      expect(redact(text, [SECRET, "abc", "known-secret-1"])).toBe(text);
    });

    it("stays linear on invisible characters and near-miss encodings", () => {
      const nasty = [
        `${"s\u200B".repeat(100_000)}`,
        `s${"\u200B".repeat(400_000)}x`,
        Buffer.from(SECRET.slice(0, -1).repeat(20_000)).toString("base64"),
        Buffer.from(SECRET.slice(0, -1).repeat(20_000)).toString("hex"),
      ];
      for (const text of nasty) {
        const started = performance.now();
        redact(text, [SECRET]);
        expect(performance.now() - started).toBeLessThan(2_000);
      }
    });
  });

  it("does not redact one- and two-character values (they would blank every occurrence)", () => {
    expect(redact("a bit of text", ["a", "it"])).toBe("a bit of text");
  });

  it("stays fast on large inputs built to make regexes backtrack", () => {
    const nasty = [
      "-eyJ".repeat(50_000),
      "-sk-".repeat(50_000),
      "a".repeat(200_000),
      "password".repeat(20_000),
      `https://${"u".repeat(100_000)}`,
      `${"x_".repeat(50_000)}token:`,
      "-----BEGIN RSA PRIVATE KEY-----".repeat(2_000),
      "-----END RSA PRIVATE KEY-----".repeat(20_000),
      `${"A".repeat(64)}\n`.repeat(20_000) + "-----END RSA PRIVATE KEY-----".repeat(3),
      "MHcCAQEE ".repeat(50_000),
      `MHcCAQEE${"A".repeat(1_000_000)}`,
      `${" ".repeat(500_000)}-----END RSA PRIVATE KEY-----`.repeat(3),
    ];
    for (const text of nasty) {
      const started = performance.now();
      redact(text, ["known-secret"]);
      // A backtracking pattern takes minutes here; a linear one milliseconds. Generous bound for slow CI.
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });
});

describe("redactDeep", () => {
  it("redacts strings inside objects and arrays and keeps other values", () => {
    const out = redactDeep({ error: `failed with ${JWT}`, nested: { list: ["short1", 3, true, null] } }, ["short1"]);
    expect(out).toEqual({ error: `failed with ${REDACTED}`, nested: { list: [REDACTED, 3, true, null] } });
  });
});

describe("redact: the edges of each rule", () => {
  it("an Authorization header however it is spaced or quoted: the scheme stays, the credentials go", () => {
    expect(redact('{"Authorization": "token abcdef12"}')).toBe(`{"Authorization": "token ${REDACTED}"}`);
    expect(redact("Authorization : token abcdef12")).toBe(`Authorization : token ${REDACTED}`);
    expect(redact("Authorization:token abcdef12")).toBe(`Authorization:token ${REDACTED}`);
    expect(redact("Authorization:    token abcdef12")).toBe(`Authorization:    token ${REDACTED}`);
    expect(redact("Authorization: token   abcdef12")).toBe(`Authorization: token   ${REDACTED}`);
  });

  it("a bare Bearer or Basic credential, with up to four spaces; prose that names the schemes stays", () => {
    expect(redact("use Bearer abcdefghijkl12 here")).toBe(`use ${REDACTED} here`);
    expect(redact("use Basic  dXNlcjpwYXNzd29yZA== here")).toBe(`use ${REDACTED} here`);
    const prose = "Basic information about Bearer auth and Basic short=";
    expect(redact(prose)).toBe(prose);
  });

  it("a private key cut off before its END line is redacted to the end of the text", () => {
    expect(redact("key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\nabcdef")).toBe(`key:\n${REDACTED}`);
  });

  it("a known secret inside a longer base64 text: the characters of the partial groups around it go too", () => {
    const secret = "known-secret-value-42";
    const blob = Buffer.from(`ab${secret}xyz!`).toString("base64");
    const out = redact(blob, [secret]);
    expect(out.startsWith(`${blob.slice(0, 2)}${REDACTED}`)).toBe(true);
    expect(out.length).toBeLessThan(blob.length);
  });

  it("a value that is not a string among the known secrets is passed over, the others still redacted", () => {
    expect(redact("a long-secret b", [undefined as unknown as string, 42 as unknown as string, "long-secret"])).toBe(`a ${REDACTED} b`);
  });
});

describe("redactDeep: what it visits", () => {
  const TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

  it("an Error becomes its redacted stack, or its message when it has none", () => {
    const error = new Error(`failed with ${TOKEN}`);
    const out = redactDeep({ error }).error as unknown as string;
    expect(out.startsWith(`Error: failed with ${REDACTED}\n`)).toBe(true);
    expect(out).toContain(" at ");
    const bare = new Error(`bare ${TOKEN}`);
    bare.stack = undefined;
    expect(redactDeep([bare])).toEqual([`bare ${REDACTED}`]);
  });

  it("objects without a prototype are rebuilt and redacted; a Date, a Map, a class instance stay as they are", () => {
    const bare = Object.assign(Object.create(null) as Record<string, string>, { t: TOKEN });
    expect(redactDeep({ bare })).toEqual({ bare: { t: REDACTED } });
    const date = new Date(0);
    const map = new Map([["t", TOKEN]]);
    const out = redactDeep({ date, map, u: undefined, n: 1, f: false });
    expect(out.date).toBe(date);
    expect(out.map).toBe(map);
    expect(out).toEqual({ date, map, u: undefined, n: 1, f: false });
  });

  it("goes eight levels deep and no further, so a cycle ends", () => {
    const nest = (depth: number): Record<string, unknown> => (depth === 0 ? { t: TOKEN } : { a: nest(depth - 1) });
    const dig = (v: unknown, depth: number): unknown => (depth === 0 ? v : dig((v as Record<string, unknown>).a, depth - 1));
    // The object at depth 8 is visited (its string redacted); the one at depth 9 is left as it is.
    expect(dig(redactDeep(nest(8)), 8)).toEqual({ t: REDACTED });
    const deeper = nest(9);
    expect(dig(redactDeep(deeper), 9)).toBe(dig(deeper, 9));
    const list = (depth: number): unknown[] => (depth === 0 ? [TOKEN] : [list(depth - 1)]);
    expect(JSON.stringify(redactDeep(list(8)))).toContain(REDACTED);
    expect(JSON.stringify(redactDeep(list(9)))).toContain(TOKEN);
    const cycle: Record<string, unknown> = { t: TOKEN };
    cycle.self = cycle;
    expect((redactDeep(cycle) as { t: string }).t).toBe(REDACTED);
  });
});

describe("maskSecret", () => {
  it("says a secret is set and how long it is, never what it is", () => {
    expect(maskSecret(undefined)).toBe("(unset)");
    expect(maskSecret("")).toBe("(unset)");
    expect(maskSecret("abcdef")).toBe(`${REDACTED} (6 chars)`);
  });
});
