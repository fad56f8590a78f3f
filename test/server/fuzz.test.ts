/**
 * Every route of the catalogue, driven over real HTTP with hostile requests (wrong types, oversized and deep
 * values, unicode down to lone surrogates and invalid UTF-8, other methods and content types, repeated and
 * unknown parameters) as the owner, a guest and anonymously. Whatever is sent, `serve` must answer below
 * 500, every error must be a JSON envelope with a code (a 405: its allowed methods instead, as Zulip sends
 * it), the server must keep answering and the database must stay intact.
 *
 * Cases come from a seeded generator: CHATCTL_FUZZ_SEED picks another run (a failure prints the seed that
 * reproduces it), CHATCTL_FUZZ_CASES the cases per route and identity, CHATCTL_FUZZ_OPS (operation names,
 * comma-separated) narrows a rerun to some routes: each route's cases depend only on the seed and the route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from '../../src/api/catalogue.js';
import { LIMITS } from '../../src/api/limits.js';
import type { Operation } from '../../src/api/operation.js';
import type { Schema } from '../../src/api/schema.js';
import { createTestOrg, type TestOrg, type TestUser } from '../helpers/org.js';

const SEED = Number(process.env.CHATCTL_FUZZ_SEED ?? 20_260_509);
const CASES = Number(process.env.CHATCTL_FUZZ_CASES ?? 8);
const ONLY = process.env.CHATCTL_FUZZ_OPS?.split(',').filter(Boolean);

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed for one route and identity, so that a rerun of some routes sees the same cases. */
function seedFor(...parts: (string | number)[]): number {
  let h = 2166136261 ^ SEED;
  for (const c of parts.join('|')) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

class Gen {
  constructor(private readonly next: () => number) {}
  chance(p: number): boolean {
    return this.next() < p;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

/** Raw wire values that are wrong for almost any parameter. */
const HOSTILE: readonly string[] = [
  '',
  ' ',
  'null',
  'true',
  '0',
  '-1',
  '1.5',
  '1e999',
  'NaN',
  '9'.repeat(400),
  '[]',
  '{}',
  '[1,',
  '"str"',
  '[null]',
  '[[1]]',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{}}}',
  '\u0000',
  '\uD800',
  'a\uDC00b',
  '\u202Eevil',
  '👩‍👩‍👧‍👦'.repeat(50),
  'ü',
  '<script>alert(1)</script>',
  "'; DROP TABLE users; --",
  '%zz',
  '../../etc/passwd',
];

/** Values over the limits, each dangerous to the code behind the parameter, so drawn more often. */
const OVERSIZED: readonly string[] = [
  deep(LIMITS.jsonDepth + 1),
  deep(5000),
  `[${deep(200)}]`,
  `[${Array.from({ length: LIMITS.listItems + 1 }, (_, i) => i).join(',')}]`,
  `[${Array(5000).fill(1).join(',')}]`,
  'x'.repeat(70_000),
];

/** Path segments, already percent-encoded (some deliberately not validly). */
const SEGMENTS: readonly string[] = [
  '0',
  '-1',
  '1',
  '2',
  '3',
  '99999999999999999999',
  'me',
  'abc',
  '%zz',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '..',
  '%2F',
  '%00',
  encodeURIComponent('ü'),
  'x'.repeat(300),
];

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'HEAD', 'PROPFIND'] as const;

/** A plausible value of a schema's type (in range or not), as it travels: strings bare, the rest JSON. */
function plausible(g: Gen, schema: Schema, ids: number[], depth = 0): unknown {
  switch (schema.t) {
    case 'int':
      return schema.oneOf && g.chance(0.7) ? g.pick(schema.oneOf) : g.pick([...ids, 0, -1, 2 ** 31, Number.MAX_SAFE_INTEGER]);
    case 'number':
      return g.pick([0, 1.5, -3, 1e300]);
    case 'bool':
      return g.chance(0.5);
    case 'null':
      return null;
    case 'string':
      return schema.oneOf && g.chance(0.7)
        ? g.pick(schema.oneOf)
        : g.pick(['x', 'general', 'owner@example.com', 'ü\uD800', 'a'.repeat((schema.maxLength ?? 50) + 1), '']);
    case 'list':
      return depth > 3 ? [] : Array.from({ length: g.int(4) }, () => plausible(g, schema.of, ids, depth + 1));
    case 'object':
    case 'dict': {
      const out: Record<string, unknown> = {};
      const fields = schema.t === 'object' ? Object.entries(schema.fields).map(([k, f]) => [k, f.schema] as const) : [['key', schema.of] as const];
      for (const [k, s] of fields) if (depth <= 3 && g.chance(0.8)) out[k] = plausible(g, s, ids, depth + 1);
      if (g.chance(0.2)) out.unexpected = 1;
      return out;
    }
    case 'union':
      return plausible(g, g.pick(schema.of), ids, depth);
    case 'any':
      return g.pick([{ operator: 'is', operand: 'starred' }, ['stream', 'general'], { operator: 'dm', operand: ids }, 'x', 1]);
  }
}

const onWire = (schema: Schema, value: unknown): string =>
  typeof value === 'string' && (schema.t === 'string' || (schema.t === 'union' && schema.of.some((o) => o.t === 'string'))) ? value : JSON.stringify(value);

interface Case {
  method: string;
  path: string;
  query: [string, string][];
  body: [string, string][];
  /** How the body travels. */
  encoding: 'form' | 'multipart' | 'json' | 'raw-bytes' | 'text';
  /** Extra raw text appended to a form body (invalid percent-encoding). */
  rawTail: string;
  file: boolean;
  fileName: string;
}

const FILE_NAMES: readonly string[] = ['a.txt', '', '.', '..', '../../x', 'ü\uD800.txt', 'é'.repeat(200), 'x'.repeat(300), 'a\u0000b', 'CON', ' .txt'];

function makeCase(g: Gen, op: Operation, ids: number[]): Case {
  const method = g.chance(0.85) ? op.method : g.pick(METHODS);
  const path = op.path.replace(/\{(\w+)\}/g, () => (g.chance(0.5) ? String(g.pick(ids)) : g.pick(SEGMENTS)));
  const params: [string, string][] = [];
  for (const [name, def] of Object.entries(op.params)) {
    if (def.in === 'path' || g.chance(0.25)) continue;
    const value = g.chance(0.5) ? onWire(def.schema, plausible(g, def.schema, ids)) : g.pick(g.chance(0.3) ? OVERSIZED : HOSTILE);
    params.push([name, value]);
    if (g.chance(0.1)) params.push([name, g.pick(HOSTILE)]);
  }
  if (g.chance(0.2)) params.push([g.pick(['unknown', 'client', '__proto__', 'constructor', 'ü\uD800']), g.pick(HOSTILE)]);
  const inQuery = method === 'GET' || method === 'HEAD' || g.chance(0.2);
  return {
    method,
    path,
    query: inQuery ? params : [],
    body: inQuery ? [] : params,
    encoding: op.upload && g.chance(0.7) ? 'multipart' : g.pick(['form', 'form', 'form', 'multipart', 'json', 'raw-bytes', 'text'] as const),
    rawTail: g.chance(0.15) ? g.pick(['&x=%zz', '&y=%ED%A0%80', '&%ff=1', '&&&=', '&a=%']) : '',
    file: op.upload === true || g.chance(0.05),
    fileName: g.pick(FILE_NAMES),
  };
}

function requestOf(c: Case): { url: string; init: RequestInit } {
  const query = c.query.length ? `?${new URLSearchParams(c.query).toString()}${c.rawTail}` : '';
  const url = `/api/v1${c.path}${query}`;
  if (c.method === 'GET' || c.method === 'HEAD') return { url, init: { method: c.method } };
  let body: BodyInit | undefined;
  const headers: Record<string, string> = {};
  switch (c.encoding) {
    case 'multipart': {
      const form = new FormData();
      for (const [k, v] of c.body) form.append(k, v);
      if (c.file) form.append('file', new Blob(['hello']), c.fileName);
      body = form;
      break;
    }
    case 'json':
      headers['content-type'] = 'application/json';
      body = JSON.stringify(Object.fromEntries(c.body));
      break;
    case 'raw-bytes':
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new Uint8Array([0x61, 0x3d, 0xff, 0xfe, 0x26, 0xc3, 0x28, 0x3d, 0xed, 0xa0, 0x80]);
      break;
    case 'text':
      headers['content-type'] = 'text/plain; charset=latin1';
      body = new URLSearchParams(c.body).toString();
      break;
    default:
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = `${new URLSearchParams(c.body).toString()}${c.rawTail}`;
  }
  return { url, init: { method: c.method, body, headers } };
}

const describeCase = (who: string, c: Case) =>
  `${who} ${c.method} ${c.path} [${c.encoding}${c.file ? ` file ${JSON.stringify(c.fileName.slice(0, 40))}` : ''}] ${JSON.stringify([...c.query, ...c.body]).slice(0, 300)}${c.rawTail}`;

describe('fuzzing every route over HTTP', () => {
  let org: TestOrg;
  let site: string;
  let guest: TestUser;
  beforeAll(async () => {
    org = createTestOrg();
    guest = org.addUser({ role: 600 });
    site = await org.http();
  });
  afterAll(() => org.close());

  /** The Authorization header of a fixture user as the store has it now (a case may have rotated the key). */
  const authOf = (user: TestUser, role: number): string => {
    // A case may have deactivated or demoted the user: put them back, so later cases keep their identity.
    org.db.prepare('UPDATE users SET is_active = 1, role = ? WHERE id = ?').run(role, user.id);
    const { email, api_key } = org.db.prepare('SELECT email, api_key FROM users WHERE id = ?').get(user.id) as { email: string; api_key: string };
    return `Basic ${Buffer.from(`${email}:${api_key}`).toString('base64')}`;
  };

  it(`answers every case below 500 with a JSON envelope (seed ${SEED}, ${CASES} cases per route and identity)`, async () => {
    const ops = catalogue.filter((op) => !ONLY || ONLY.includes(op.name));
    expect(ops.length).toBeGreaterThan(0);
    const ids = [org.owner.id, guest.id, 1, 2];
    const problems: string[] = [];
    let sent = 0;
    for (const op of ops) {
      for (const who of ['owner', 'guest', 'anonymous'] as const) {
        const g = new Gen(prng(seedFor(op.name, who)));
        for (let i = 0; i < CASES; i++) {
          const c = makeCase(g, op, ids);
          const { url, init } = requestOf(c);
          const headers = new Headers(init.headers);
          if (who !== 'anonymous') headers.set('authorization', who === 'owner' ? authOf(org.owner, 100) : authOf(guest, 600));
          const res = await fetch(`${site}${url}`, { ...init, headers, signal: AbortSignal.timeout(15_000) }).catch((e: unknown) => e as Error);
          sent++;
          const problem = await judge(c, res);
          if (problem) problems.push(`${problem}: ${describeCase(who, c)}`);
        }
      }
    }
    const alive = await fetch(`${site}/api/v1/server_settings`);
    expect(alive.status).toBe(200);
    expect(org.db.pragma('integrity_check', { simple: true })).toBe('ok');
    const internal = org.logs.filter((l) => l.includes('internal error'));
    expect(
      { problems: problems.slice(0, 20), internal: internal.slice(0, 5).map((l) => l.slice(0, 300)) },
      `reproduce with CHATCTL_FUZZ_SEED=${SEED} (${sent} requests)`,
    ).toEqual({
      problems: [],
      internal: [],
    });
  }, 120_000);
});

/** What is wrong with an answer, or null. */
async function judge(c: Case, res: Response | Error): Promise<string | null> {
  if (res instanceof Error) return `no answer (${res.message})`;
  const text = await res.text();
  if (res.status >= 500) return `${res.status} ${text.slice(0, 200)}`;
  if (c.method === 'HEAD' || res.status === 204) return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${res.status} with a body that is not JSON: ${text.slice(0, 100)}`;
  }
  if (typeof body !== 'object' || body === null) return `${res.status} with a body that is not an object`;
  const envelope = body as Record<string, unknown>;
  if (res.status >= 400) {
    // A 405 is the one error without a code, as a Zulip server sends it (zerver/lib/response.py json_method_not_allowed).
    const coded = res.status === 405 ? Array.isArray(envelope.allowed_methods) : typeof envelope.code === 'string';
    if (envelope.result !== 'error' || typeof envelope.msg !== 'string' || !coded) {
      return `${res.status} without a full error envelope: ${text.slice(0, 200)}`;
    }
  } else if (envelope.result !== 'success') return `${res.status} without result "success": ${text.slice(0, 200)}`;
  return null;
}
