/** Uploaded files: uploading, listing one's uploads, deleting them. */
import { operation, p } from '../operation.js';
import { s } from '../schema.js';

/** A message that links an uploaded file; `date_sent` in milliseconds. */
export interface AttachmentMessage {
  id: number;
  date_sent: number;
}

/** An uploaded file as GET /attachments and `attachment` events show it; `create_time` in milliseconds. */
export interface Attachment {
  id: number;
  name: string;
  path_id: string;
  size: number;
  create_time: number;
  messages: AttachmentMessage[];
}

export interface UploadResult {
  /** Relative URL of the file, `/user_uploads/<path_id>` (URL-encoded). */
  uri: string;
  /** The same as `uri` (feature level 285). */
  url: string;
  /** The name the file was stored under (feature level 285). */
  filename: string;
}

export const uploadFile = operation<UploadResult>()({
  name: 'upload-file',
  method: 'POST',
  path: '/user_uploads',
  summary: 'Upload one file; link it in a message to share it',
  access: 'user',
  params: {},
  upload: true,
  openapiPath: '/user_uploads',
});

export const getAttachments = operation<{ attachments: Attachment[]; upload_space_used: number }>()({
  name: 'get-attachments',
  method: 'GET',
  path: '/attachments',
  summary: "The caller's uploaded files, with the messages linking each",
  access: 'user',
  cacheable: true,
  params: {},
  openapiPath: '/attachments',
});

export const removeAttachment = operation<Record<string, never>>()({
  name: 'remove-attachment',
  method: 'DELETE',
  path: '/attachments/{attachment_id}',
  summary: 'Delete one of your uploaded files',
  access: 'user',
  params: { attachment_id: p.path(s.int(), 'from GET /attachments') },
  openapiPath: '/attachments/{attachment_id}',
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const attachmentsOps = {
  uploadFile,
  getAttachments,
  removeAttachment,
} as const;
