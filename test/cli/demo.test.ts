import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/server/store/db.js';
import { runCli, tempHome } from '../helpers/cli.js';

describe('init --demo', () => {
  it('creates a sample organization through the API: every role, a bot, channels, messages, reactions, an edit, a group, a linkifier, an attachment, a folder', async () => {
    const { home, env } = tempHome();
    const dir = join(home, 'org');
    const r = await runCli(['init', '--data-dir', dir, '--demo', '--password-stdin'], { env, stdin: 'demo-pass-1\n' });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('added demo data');
    const users = JSON.parse((await runCli(['users', 'list', '--json'], { env })).stdout) as { role: number; is_bot: boolean }[];
    expect(new Set(users.filter((u) => !u.is_bot).map((u) => u.role))).toEqual(new Set([100, 200, 300, 400, 600]));
    expect(users.some((u) => u.is_bot)).toBe(true);
    const db = openDb(dir);
    try {
      const count = (sql: string) => db.prepare(sql).pluck().get() as number;
      expect(count("SELECT count(*) FROM streams WHERE name IN ('general', 'design', 'backend')")).toBe(3);
      expect(count('SELECT count(*) FROM streams WHERE folder_id IS NOT NULL')).toBe(2);
      expect(count('SELECT count(DISTINCT topic) FROM messages')).toBeGreaterThanOrEqual(3);
      expect(count('SELECT count(*) FROM message_edits')).toBe(1);
      expect(count('SELECT count(*) FROM reactions')).toBe(3);
      expect(count('SELECT count(*) FROM user_groups WHERE is_system_group = 0')).toBe(1);
      expect(count('SELECT count(*) FROM linkifiers')).toBe(1);
      expect(count('SELECT count(*) FROM attachments')).toBe(1);
      expect(count('SELECT count(*) FROM attachment_messages')).toBe(1);
      expect(count('SELECT count(*) FROM channel_folders')).toBe(1);
      expect(db.prepare("SELECT rendered_content FROM messages WHERE content LIKE '%#42%'").pluck().get()).toContain(
        'https://github.com/zulip/zulip/issues/42',
      );
    } finally {
      db.close();
    }
  });
});
