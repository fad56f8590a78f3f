/**
 * The whole catalogue at the levels chatctl meets (200, 263, 277, 334 and the newest it knows): every
 * operation with each of its parameters given (a sample value, and its default where it has one), and with
 * all of them at once, goes to a stand-in server at that level that lists what it does not read. No request
 * may carry such a parameter: chatctl either leaves it out (a default, or what the server does anyway) or
 * refuses the call before anything is sent, naming the level it needs.
 */
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../src/api/catalogue.js';
import { getMessage } from '../../src/api/operations/messages.js';
import { p, type Operation, type ParamDef } from '../../src/api/operation.js';
import type { Schema } from '../../src/api/schema.js';
import { s } from '../../src/api/schema.js';
import { ChatClient } from '../../src/client/client.js';
import { FeatureCache, FeatureLevelError } from '../../src/client/features.js';
import { fetchWebhookMessage } from '../../src/cli/webhook/payload.js';
import { LevelStandIn, type Unknown } from './level-stand-in.js';

/** The newest level any declaration of the catalogue names. */
const NEWEST = Math.max(
  ...catalogue.flatMap((op) => [
    op.minFeatureLevel ?? 0,
    ...Object.values(op.params).flatMap((d) => [d.minFeatureLevel ?? 0, ...(d.older ?? []).map((f) => f.before)]),
  ]),
);
const LEVELS = [200, 263, 277, 334, NEWEST];

/**
 * Legacy parameters the embedded server still reads (the project's API document keeps them) and no Zulip
 * server chatctl supports does: `role` replaced them at feature level 8 (views/users.py update_user_backend).
 */
const EMBEDDED_ONLY = new Set(['is_admin', 'is_guest']);

/** Values the schema does not describe (`any`), by parameter name. */
const SAMPLES: Readonly<Record<string, unknown>> = {
  narrow: [{ operator: 'channel', operand: 'general' }],
};

function sample(schema: Schema, name: string, def?: unknown): unknown {
  if (name in SAMPLES) return SAMPLES[name];
  switch (schema.t) {
    case 'string':
      return schema.oneOf?.[0] ?? (name === 'email' ? 'a@x.test' : 'x');
    case 'int':
      return schema.oneOf?.[0] ?? Math.max(1, schema.min ?? 1);
    case 'number':
      return 1;
    case 'bool':
      // Not the default: a default may be left out for an older server, a value asked for may not.
      return def !== true;
    case 'null':
      return null;
    case 'list':
      return [sample(schema.of, name)];
    case 'dict':
      return { k: sample(schema.of, name) };
    case 'object':
      return Object.fromEntries(Object.entries(schema.fields).map(([k, f]) => [k, sample(f.schema, k)]));
    case 'union':
      return sample(schema.of.find((o) => o.t !== 'null') ?? schema.of[0]!, name, def);
    case 'any':
      return {};
  }
}

const clientAt = (server: LevelStandIn): ChatClient =>
  new ChatClient(server, null, {}, { features: new FeatureCache({ gate: true, cached: { featureLevel: server.level, checkedAt: Date.now() / 1000 } }) });

type Call = { readonly what: string; readonly params: Record<string, unknown>; readonly mayRefuse: boolean };

/** The calls that exercise `op`: required parameters only, each other parameter given (sample and default), all at once. */
function callsOf(op: Operation): Call[] {
  const entries = Object.entries(op.params).filter(([name]) => !EMBEDDED_ONLY.has(name)) as [string, ParamDef][];
  const required = Object.fromEntries(entries.filter(([, d]) => d.required).map(([name, d]) => [name, sample(d.schema, name)]));
  const calls: Call[] = [{ what: 'required only', params: required, mayRefuse: false }];
  for (const [name, d] of entries.filter(([, d]) => !d.required)) {
    calls.push({ what: name, params: { ...required, [name]: sample(d.schema, name, d.default) }, mayRefuse: true });
    // What chatctl adds by default never makes a call fail: a server without the parameter acts as its default.
    if ('default' in d) calls.push({ what: `${name} (default)`, params: { ...required, [name]: d.default }, mayRefuse: false });
  }
  calls.push({
    what: 'every parameter',
    params: Object.fromEntries(entries.map(([name, d]) => [name, sample(d.schema, name, d.default)])),
    mayRefuse: true,
  });
  return calls;
}

/** Sends every call of `ops` to a stand-in at `level`; what reached it unread, and the calls refused wrongly. */
async function walk(ops: readonly Operation[], level: number) {
  const server = new LevelStandIn(level);
  const client = clientAt(server);
  const wrongRefusals: string[] = [];
  let sent = 0;
  for (const op of ops) {
    const opRefused = op.minFeatureLevel !== undefined && level < op.minFeatureLevel;
    for (const call of callsOf(op)) {
      try {
        for (const req of await client.prepare(op, call.params)) {
          sent++;
          await server.send(req);
        }
      } catch (e) {
        if (!(e instanceof FeatureLevelError)) throw new Error(`${op.name} (${call.what}) at ${level}: ${String(e)}`);
        expect(e.needed).toBeGreaterThan(level);
        if (!opRefused && !call.mayRefuse) wrongRefusals.push(`${op.name} (${call.what}): ${e.message}`);
        // A parameter refused although the server reads it would be a level declared too high.
        if (!opRefused && call.what !== 'every parameter' && e.message.startsWith(`${op.name} parameter ${call.what} `)) {
          const req = { method: op.method, path: op.path.replace(/\{\w+\}/g, '1'), query: [[call.what, 'x']] as [string, string][], body: [], headers: {} };
          if (server.ignored(req).length === 0) wrongRefusals.push(`${op.name} (${call.what}) refused at ${level}, which reads it`);
        }
      }
    }
  }
  return { unknown: server.unknown, wrongRefusals, sent };
}

describe('no request carries a parameter above its server level', () => {
  for (const level of LEVELS) {
    it(`the whole catalogue at feature level ${level}`, async () => {
      const { unknown, wrongRefusals, sent } = await walk(catalogue, level);
      expect(unknown).toEqual([]);
      expect(wrongRefusals).toEqual([]);
      expect(sent).toBeGreaterThan(catalogue.length);
    });
  }

  it('at the newest level every operation is sent with every parameter (the walk refuses nothing it should send)', async () => {
    const server = new LevelStandIn(NEWEST);
    const client = clientAt(server);
    for (const op of catalogue) {
      for (const call of callsOf(op)) await client.prepare(op, call.params);
    }
  });

  it('a parameter whose level is not declared is caught: allow_empty_topic_name without its level reaches a 277 server', async () => {
    const undeclared: Operation = { ...getMessage, params: { ...getMessage.params, allow_empty_topic_name: p.def(s.bool(), false) } };
    const { unknown } = await walk([undeclared], 277);
    expect(unknown).toContainEqual<Unknown>({ request: 'GET /messages/1', params: ['allow_empty_topic_name'] });
    expect((await walk([getMessage], 277)).unknown).toEqual([]);
  });

  it('a webhook payload read from a 277 server sends no allow_empty_topic_name, and nothing is reported ignored', async () => {
    const message = { id: 5, type: 'stream', content: 'x', flags: [] };
    const server = new LevelStandIn(277, () => ({ messages: [message] }));
    const warnings: string[] = [];
    const client = new ChatClient(
      server,
      null,
      { warn: (m) => warnings.push(m) },
      { features: new FeatureCache({ gate: true, cached: { featureLevel: 277, checkedAt: Date.now() / 1000 } }) },
    );
    await fetchWebhookMessage(client, 5);
    expect(server.sent.map((r) => r.query.map(([name]) => name))).toEqual([
      ['anchor', 'num_before', 'num_after', 'narrow', 'apply_markdown', 'client_gravatar'],
      ['anchor', 'num_before', 'num_after', 'narrow', 'apply_markdown', 'client_gravatar'],
    ]);
    expect(server.unknown).toEqual([]);
    expect(warnings).toEqual([]);
  });
});
