import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/api/operations/messages.js';
import { emojiOf } from '../../src/cli/commands/reactions.js';
import { cliTarget, expectUsageError, parse, runCli, scriptedPrompter } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/org.js';
import { clientFor, TRANSPORTS } from '../helpers/transports.js';

describe('reactions: parsing', () => {
  it('maps argv to options', async () => {
    const p = await parse(['reactions', 'add', '12', 'octopus', '--code', '5', '--type', 'realm_emoji']);
    expect(p.spec.path).toEqual(['reactions', 'add']);
    expect(p.opts).toMatchObject({ message: 12, emoji: 'octopus', code: '5', type: 'realm_emoji' });
    const r = await parse(['reactions', 'remove', '12', 'tada', '-y']);
    expect(r.opts).toMatchObject({ yes: true });
  });

  it('reads names, :names: and the emoji itself', async () => {
    expect(await emojiOf(':tada:', undefined, undefined)).toEqual({ emoji_name: 'tada' });
    expect(await emojiOf('+1', undefined, undefined)).toEqual({ emoji_name: '+1' });
    expect(await emojiOf('👍', undefined, undefined)).toEqual({ emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' });
    expect(await emojiOf('❤️', undefined, undefined)).toEqual({ emoji_name: 'heart', emoji_code: '2764', reaction_type: 'unicode_emoji' });
  });

  it.each([
    [['reactions', 'add', 'x', 'tada'], 'a message ID is a number, not "x"'],
    [['reactions', 'add', '5', 'tada', '--type', 'sticker'], 'unknown reaction type "sticker"'],
    [['reactions', 'add', '5', '☃☃'], 'is not an emoji name or a known emoji'],
    [['reactions', 'add', '5'], "missing required argument 'emoji'"],
  ])('%j is a usage error', expectUsageError);
});

describe.each(TRANSPORTS)('reactions commands over %s', (kind) => {
  let org: TestOrg;
  beforeAll(() => {
    org = createTestOrg();
  });
  afterAll(() => org.close());

  const message = async () => (await (await clientFor(org, kind)).call(sendMessage, { type: 'stream', to: 'general', topic: 'reactions', content: 'hi' })).id;
  const reactions = (id: number) =>
    org.db
      .prepare('SELECT emoji_name, emoji_code, reaction_type FROM reactions WHERE message_id = ? AND user_id = ? ORDER BY emoji_name')
      .all(id, org.owner.id);

  it('adds reactions by name and by the emoji itself', async () => {
    const id = await message();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'reactions', 'add', String(id), ':tada:'], { env: t.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`chatctl: :tada: added to message ${id}\n`);
    expect((await runCli([...t.args, 'reactions', 'add', String(id), '👍'], { env: t.env })).code).toBe(0);
    expect(reactions(id)).toEqual([
      { emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' },
      { emoji_name: 'tada', emoji_code: '1f389', reaction_type: 'unicode_emoji' },
    ]);
  });

  it('reports a reaction already made as unchanged (exit 0), and an unknown emoji or message as not found (6)', async () => {
    const id = await message();
    const t = await cliTarget(org, kind);
    await runCli([...t.args, 'reactions', 'add', String(id), 'tada'], { env: t.env });
    const again = await runCli([...t.args, 'reactions', 'add', String(id), 'tada'], { env: t.env });
    expect(again).toEqual({ code: 0, stdout: '', stderr: `chatctl: :tada: unchanged: already on message ${id}\n` });
    expect(reactions(id)).toHaveLength(1);
    const unknownEmoji = await runCli([...t.args, 'reactions', 'add', String(id), 'no_such_emoji_name'], { env: t.env });
    expect(unknownEmoji.code).toBe(6);
    expect(unknownEmoji.stderr).toContain("Emoji 'no_such_emoji_name' does not exist");
    const unknownMessage = await runCli([...t.args, 'reactions', 'add', '999999', 'tada'], { env: t.env });
    expect(unknownMessage.code).toBe(6);
  });

  it('removes only with --yes when not on a terminal, and asks on one', async () => {
    const id = await message();
    const t = await cliTarget(org, kind);
    await runCli([...t.args, 'reactions', 'add', String(id), 'tada'], { env: t.env });
    const refused = await runCli([...t.args, 'reactions', 'remove', String(id), 'tada'], { env: t.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    expect(reactions(id)).toHaveLength(1);
    const no = scriptedPrompter({ confirm: [false] });
    const cancelled = await runCli([...t.args, 'reactions', 'remove', String(id), 'tada'], { env: t.env, tty: true, prompter: no });
    expect(no.asked).toEqual([`Remove your :tada: reaction from message ${id}?`]);
    expect(cancelled.code).toBe(130);
    expect(reactions(id)).toHaveLength(1);
    const done = await runCli([...t.args, 'reactions', 'remove', String(id), 'tada', '--yes'], { env: t.env });
    expect(done.code).toBe(0);
    expect(reactions(id)).toEqual([]);
    const gone = await runCli([...t.args, 'reactions', 'remove', String(id), 'tada', '--yes'], { env: t.env });
    expect(gone).toEqual({ code: 0, stdout: '', stderr: `chatctl: :tada: unchanged: not on message ${id}\n` });
    const noMessage = await runCli([...t.args, 'reactions', 'remove', '999999', 'tada', '--yes'], { env: t.env });
    expect(noMessage.code).toBe(6);
  });

  it('prints the request with --dry-run (no confirmation) and sends nothing', async () => {
    const id = await message();
    const t = await cliTarget(org, kind);
    const r = await runCli([...t.args, 'reactions', 'add', String(id), '🎉', '--dry-run'], { env: t.env });
    expect(JSON.parse(r.stdout)).toEqual({
      method: 'POST',
      path: `/api/v1/messages/${id}/reactions`,
      body: { emoji_name: 'tada', emoji_code: '1f389', reaction_type: 'unicode_emoji' },
    });
    const remove = await runCli([...t.args, 'reactions', 'remove', String(id), 'tada', '--dry-run'], { env: t.env });
    expect(remove.code).toBe(0);
    expect(JSON.parse(remove.stdout)).toEqual({ method: 'DELETE', path: `/api/v1/messages/${id}/reactions`, body: { emoji_name: 'tada' } });
    expect(reactions(id)).toEqual([]);
  });
});
