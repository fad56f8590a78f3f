/**
 * An HTTP answer whose list is read as it arrives: whatever the reads split (keys, strings, multi-byte
 * characters), the elements and keys are those of the document; an answer without the list is read whole.
 */
import { describe, expect, it } from 'vitest';
import { StreamedList } from '../../src/api/streamed-list.js';
import { readStreamed } from '../../src/client/streamed-body.js';

async function collect(list: StreamedList): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of list) out.push(...chunk);
  return out;
}

const whole = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** The bytes of `text` in reads of `size` bytes, counting how far they were read. */
function reads(text: string, size: number, seen = { reads: 0, returned: false }): AsyncIterable<Uint8Array> {
  const bytes = Buffer.from(text);
  return {
    [Symbol.asyncIterator]: () => {
      let at = 0;
      return {
        next: async () => {
          if (at >= bytes.length) return { done: true, value: undefined };
          seen.reads++;
          const chunk = new Uint8Array(bytes.subarray(at, at + size));
          at += size;
          return { done: false, value: chunk };
        },
        return: async () => {
          seen.returned = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
}

const answer = {
  result: 'success',
  msg: '',
  members: Array.from({ length: 50 }, (_, i) => ({ user_id: i, full_name: `Zoë "${i}" 名前`, profile_data: { 1: { value: `[${i}]` } } })),
  ignored_parameters_unsupported: ['bogus'],
};

describe('an answer read as it arrives', () => {
  it.each([1, 7, 64, 100_000])('hands over the list and its keys, in reads of %i bytes', async (size) => {
    const body = (await readStreamed(reads(JSON.stringify(answer), size), 'members', whole)) as Record<string, unknown>;
    expect(body.result).toBe('success');
    const list = body.members;
    expect(list).toBeInstanceOf(StreamedList);
    expect(body).not.toHaveProperty('ignored_parameters_unsupported');
    expect(await collect(list as StreamedList)).toEqual(answer.members);
    // Keys after the list are known once it has been read, in their order.
    expect(Object.keys(body)).toEqual(['result', 'msg', 'members', 'ignored_parameters_unsupported']);
    expect(body.ignored_parameters_unsupported).toEqual(['bogus']);
  });

  it('reads an empty list as a list without elements', async () => {
    const body = (await readStreamed(reads('{"result":"success","msg":"","members":[]}', 5), 'members', whole)) as Record<string, unknown>;
    expect(await collect(body.members as StreamedList)).toEqual([]);
  });

  it.each([
    ['an error answer', '{"result":"error","msg":"Invalid user ID: 9","code":"BAD_REQUEST"}'],
    ['a proxy page', '<html><title>Bad gateway</title></html>'],
    ['another JSON value', '[1,2,3]'],
  ])('gives %s whole, as the transport would read it', async (_, text) => {
    expect(await readStreamed(reads(text, 4), 'members', whole)).toEqual(whole(text));
  });

  it('fails the list when the answer ends in the middle of it', async () => {
    const text = JSON.stringify(answer);
    const body = (await readStreamed(reads(text.slice(0, text.length / 2), 16), 'members', whole)) as Record<string, unknown>;
    await expect(collect(body.members as StreamedList)).rejects.toThrow("the server's answer ended in the middle of its list");
  });

  it('stops reading the answer when the reader stops', async () => {
    const seen = { reads: 0, returned: false };
    const body = (await readStreamed(reads(JSON.stringify(answer), 64, seen), 'members', whole)) as Record<string, unknown>;
    for await (const _chunk of body.members as StreamedList) break;
    expect(seen.returned).toBe(true);
    expect(seen.reads).toBeLessThan(JSON.stringify(answer).length / 64 / 2);
  });
});
