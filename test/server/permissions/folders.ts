import { randomToken, unique } from '../../helpers/names.js';
import { ADMINS_ONLY, type Caller, type Fixture, type PermissionRows } from './matrix.js';

const EVERYONE: readonly Caller[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];

function newFolder(f: Fixture): number {
  const name = `${unique('Folder')} ${randomToken()}`;
  const id = Number(
    f.org.db.prepare('INSERT INTO channel_folders (name, "order", date_created, creator_id) VALUES (?, 0, ?, ?)').run(name, f.org.clock.now(), f.org.owner.id)
      .lastInsertRowid,
  );
  f.org.db.prepare('UPDATE channel_folders SET "order" = id WHERE id = ?').run(id);
  return id;
}

export const folderCases: PermissionRows<'folders'> = {
  getChannelFolders: [
    {
      name: 'list channel folders',
      request: () => ({ method: 'GET', path: '/channel_folders', query: [['include_archived', 'true']] }),
      allowed: EVERYONE,
      denied: {},
    },
  ],
  createChannelFolder: [
    {
      name: 'create a channel folder',
      request: () => ({
        method: 'POST',
        path: '/channel_folders/create',
        body: [
          ['name', `${unique('New')} ${randomToken()}`],
          ['description', ''],
        ],
      }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
  updateChannelFolder: [
    {
      name: 'archive a channel folder',
      request: (f) => ({ method: 'PATCH', path: `/channel_folders/${newFolder(f)}`, body: [['is_archived', 'true']] }),
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
  reorderChannelFolders: [
    {
      name: 'reorder the channel folders',
      request: (f) => {
        newFolder(f);
        const ids = (f.org.db.prepare('SELECT id FROM channel_folders ORDER BY id DESC').all() as { id: number }[]).map((r) => r.id);
        return { method: 'PATCH', path: '/channel_folders', body: [['order', JSON.stringify(ids)]] };
      },
      allowed: ['owner', 'admin'],
      denied: ADMINS_ONLY,
    },
  ],
};
