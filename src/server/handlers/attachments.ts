/** Uploading files, listing one's uploads, deleting them. */
import { badRequest } from '../../api/errors.js';
import { LIMITS } from '../../api/limits.js';
import { getAttachments, removeAttachment, uploadFile } from '../../api/operations/attachments.js';
import { bind, callerOf, type Handlers } from '../context.js';
import { attachmentById, attachmentsOf, deleteAttachment, emitAttachmentChange, insertAttachment, uploadSpaceUsed } from '../model/attachments.js';
import { deleteUploadBytes, newPathId, newStoredName, storeUploadBytes, uploadUrl } from '../model/uploads.js';

export const handlers: Handlers<'attachments'> = {
  uploadFile: bind(uploadFile, (ctx) => {
    const me = callerOf(ctx);
    if (ctx.files.length === 0) throw badRequest('You must specify a file to upload');
    if (ctx.files.length !== 1) throw badRequest('You may only upload one file at a time');
    const file = ctx.files[0]!;
    if (Buffer.byteLength(file.filename) > LIMITS.uploadNameBytes) {
      throw badRequest(`The file name is too long (limit: ${LIMITS.uploadNameBytes} bytes)`);
    }
    if (file.data.length > LIMITS.uploadMiB * 1024 * 1024) {
      throw badRequest(`Uploaded file is larger than the allowed limit of ${LIMITS.uploadMiB} MiB`);
    }
    const pathId = newPathId(file.filename);
    const row = insertAttachment(ctx.db, {
      owner_id: me.id,
      name: file.filename,
      path_id: pathId,
      stored_as: newStoredName(),
      size: file.data.length,
      content_type: file.contentType,
      create_time_ms: ctx.nowSeconds() * 1000,
    });
    // After the row: if writing fails, the transaction takes the row back with it; if anything after the
    // write fails, the file goes too. (A commit that fails leaves a file no row names: the sweep's.)
    storeUploadBytes(ctx.dataDir, row.stored_as!, file.data);
    try {
      emitAttachmentChange(ctx.db, 'add', row);
    } catch (e) {
      deleteUploadBytes(ctx.dataDir, row);
      throw e;
    }
    const url = uploadUrl(pathId);
    return { uri: url, url, filename: pathId.slice(pathId.lastIndexOf('/') + 1) };
  }),

  getAttachments: bind(getAttachments, (ctx) => ({ attachments: attachmentsOf(ctx.db, callerOf(ctx).id), upload_space_used: uploadSpaceUsed(ctx.db) })),

  removeAttachment: bind(removeAttachment, (ctx, p) => {
    const me = callerOf(ctx);
    const row = attachmentById(ctx.db, p.attachment_id);
    if (!row || row.owner_id !== me.id) throw badRequest('Invalid attachment');
    deleteAttachment(ctx.db, ctx, row);
    // The file goes once the row's deletion is committed: a process killed in between leaves a file no row
    // names (the upload sweep's), never a row naming a missing file.
    ctx.defer(async () => deleteUploadBytes(ctx.dataDir, row));
    return {};
  }),
};
