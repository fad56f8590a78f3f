import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { decodeWire, encodeWire, s } from '../../src/api/schema.js';

const msgOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e.msg;
    throw e;
  }
  throw new Error('no error');
};

describe("wire decoding, with a Zulip server's messages", () => {
  it('says a list of IDs or names is too long rather than not a list', () => {
    const principals = s.union(s.list(s.int(), { unique: true, maxItems: 3 }), s.list(s.string(), { unique: true, maxItems: 3 }), 'a list').schema;
    expect(msgOf(() => decodeWire(principals, '[1, 2, 3, 4]', 'principals'))).toBe('principals has too many items (limit: 3)');
    expect(decodeWire(principals, '[1, 2, 2, 3]', 'principals')).toEqual([1, 2, 3]);
    expect(msgOf(() => decodeWire(principals, '{"a": 1}', 'principals'))).toBe('principals is not a list');
  });

  it('takes strings as they are and everything else as JSON', () => {
    expect(decodeWire(s.string().schema, '[1]', 'topic')).toBe('[1]');
    expect(decodeWire(s.int().schema, '5', 'n')).toBe(5);
    expect(decodeWire(s.bool().schema, 'true', 'b')).toBe(true);
    expect(decodeWire(s.list(s.int()).schema, '[9, 10]', 'to')).toEqual([9, 10]);
  });

  it('rejects booleans that are not JSON literals', () => {
    expect(msgOf(() => decodeWire(s.bool().schema, 'True', 'ping_only'))).toBe('ping_only is not valid JSON');
    expect(msgOf(() => decodeWire(s.bool().schema, '1', 'ping_only'))).toBe('ping_only is not a boolean');
    expect(msgOf(() => decodeWire(s.bool().schema, '"x"', 'ping_only'))).toBe('ping_only is not a boolean');
  });

  it('is strict about integers and names nested positions', () => {
    expect(msgOf(() => decodeWire(s.int().schema, '"5"', 'stream_id'))).toBe('stream_id is not an integer');
    expect(msgOf(() => decodeWire(s.int().schema, '5.5', 'stream_id'))).toBe('stream_id is not an integer');
    expect(msgOf(() => decodeWire(s.list(s.int()).schema, '[1, 2, "x"]', 'to'))).toBe('to[2] is not an integer');
    expect(msgOf(() => decodeWire(s.list(s.int()).schema, '{"a": 1}', 'to'))).toBe('to is not a list');
  });

  it('words enum, range and length failures as the server does', () => {
    expect(msgOf(() => decodeWire(s.literal(['start', 'stop']).schema, 'go', 'op'))).toBe('Invalid op');
    expect(msgOf(() => decodeWire(s.intOf([0, 1, 2, 3]).schema, '7', 'visibility_policy'))).toBe(
      'Invalid visibility_policy: Value error, Not in the list of possible values',
    );
    expect(msgOf(() => decodeWire(s.int({ min: 0 }).schema, '-1', 'num_before'))).toBe('num_before is too small');
    expect(msgOf(() => decodeWire(s.string({ maxLength: 60 }).schema, 'x'.repeat(61), 'topic'))).toBe('topic is too long (limit: 60 characters)');
  });

  it('counts length in code points, not UTF-16 units', () => {
    expect(decodeWire(s.string({ maxLength: 3 }).schema, '😀😀😀', 'status_text')).toBe('😀😀😀');
  });

  it('checks object fields and unexpected keys', () => {
    const sub = s.object({ stream_id: s.int(), property: s.string() });
    expect(msgOf(() => decodeWire(s.list(sub).schema, '[{"stream_id": 1}]', 'subscription_data'))).toBe(
      'subscription_data[0]["property"] field is missing: Field required',
    );
    expect(msgOf(() => decodeWire(sub.schema, '{"stream_id": 1, "property": "x", "y": 2}', 'd'))).toBe('Argument "y" at d is unexpected');
  });

  it('accepts null where declared nullable', () => {
    expect(decodeWire(s.nullable(s.int()).schema, 'null', 'invite_expires_in_minutes')).toBeNull();
    expect(decodeWire(s.nullable(s.int()).schema, '60', 'invite_expires_in_minutes')).toBe(60);
  });

  it('encodes the way it decodes', () => {
    expect(encodeWire(s.string().schema, 'a b')).toBe('a b');
    expect(encodeWire(s.list(s.int()).schema, [1, 2])).toBe('[1,2]');
    expect(encodeWire(s.bool().schema, false)).toBe('false');
    expect(encodeWire(s.nullable(s.int()).schema, null)).toBe('null');
  });
});
