import type { Fixture, PermissionRows } from './matrix.js';

/** An upload record of the caller's (the file itself is not needed to delete it). */
function ownAttachment(f: Fixture): number {
  const ownerId = f.caller?.id ?? f.org.owner.id;
  const pathId = `2/ab/${Math.random().toString(36).slice(2).padEnd(24, 'x').slice(0, 24)}/file.txt`;
  return Number(
    f.org.db
      .prepare('INSERT INTO attachments (owner_id, name, path_id, size, create_time_ms) VALUES (?, ?, ?, 3, ?)')
      .run(ownerId, 'file.txt', pathId, f.org.clock.now() * 1000).lastInsertRowid,
  );
}

export const attachmentCases: PermissionRows<'attachments'> = {
  uploadFile: [
    {
      name: 'upload a file',
      request: () => {
        // The matrix's request type has no files; the router reads them all the same.
        const req = {
          method: 'POST',
          path: '/user_uploads',
          files: [{ field: 'file', filename: 'a.txt', contentType: 'text/plain', data: new Uint8Array([97]) }],
        };
        return req;
      },
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
  ],
  getAttachments: [
    {
      name: 'list one’s uploads',
      request: () => ({ method: 'GET', path: '/attachments' }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
  ],
  removeAttachment: [
    {
      name: 'delete one’s own upload',
      request: (f) => ({ method: 'DELETE', path: `/attachments/${ownAttachment(f)}` }),
      allowed: ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'],
      denied: {},
    },
    {
      name: 'delete another user’s upload',
      request: (f) => ({ method: 'DELETE', path: `/attachments/${ownAttachment({ ...f, caller: f.others.member })}` }),
      allowed: [],
      denied: 'Invalid attachment',
    },
  ],
};
