/**
 * The attachments story from the installed entry point, as a script runs it: a file uploaded with the raw
 * `api` command (multipart, -F file=@FILE), then listed and cleaned by the attachments commands.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli, tempHome } from '../helpers/cli.js';

describe('bin/chatctl.cjs api POST /user_uploads -F file=@note.txt', () => {
  it('uploads the file; attachments list shows it and attachments clean deletes it', async () => {
    const { home, env } = tempHome();
    const note = join(home, 'note.txt');
    writeFileSync(note, 'remember the milk\n');
    const up = await spawnCli(['api', 'POST', '/user_uploads', '-F', `file=@${note}`], { env });
    expect(up.code).toBe(0);
    const res = JSON.parse(up.stdout) as { result: string; url: string; filename: string };
    expect(res).toMatchObject({ result: 'success', filename: 'note.txt' });

    const list = await spawnCli(['attachments', 'list', '--json'], { env });
    const listed = JSON.parse(list.stdout) as { id: number; name: string; size: number; path_id: string }[];
    expect(listed.map((a) => [a.name, a.size, `/user_uploads/${a.path_id}`])).toEqual([['note.txt', 18, decodeURIComponent(res.url)]]);

    const clean = await spawnCli(['attachments', 'clean', '--unreferenced', '--yes', '--json'], { env });
    expect(clean.code).toBe(0);
    expect((JSON.parse(clean.stdout) as { id: number }[]).map((a) => a.id)).toEqual([listed[0]!.id]);
    expect(JSON.parse((await spawnCli(['attachments', 'list', '--json'], { env })).stdout)).toEqual([]);
  });
});
