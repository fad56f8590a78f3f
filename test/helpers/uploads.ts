/** Where an upload's bytes are on disk, found the way the server finds them: through its row. */
import { uploadFilePath, type StoredUpload } from '../../src/server/model/uploads.js';
import type { TestOrg } from './org.js';

export function storedFile(org: TestOrg, pathId: string): string {
  const row = org.db.prepare('SELECT path_id, stored_as FROM attachments WHERE path_id = ?').get(pathId) as StoredUpload | undefined;
  if (!row) throw new Error(`no attachment with path ID ${pathId}`);
  return uploadFilePath(org.dataDir, row);
}
