/**
 * Administering channels: creating one on its own, changing and archiving it, its subscribers, the default
 * channels. The checks and their order are a Zulip server's (views/streams.py).
 */
import { badRequest } from '../../api/errors.js';
import { addDefaultStream, archiveStream, createChannel, getSubscribers, removeDefaultStream, updateStream } from '../../api/operations/channels.js';
import { bind, callerOf, type Handlers } from '../context.js';
import {
  announceCreated,
  archiveChannel,
  changeChannelPermission,
  checkNameAvailable,
  renameChannel,
  setChannelDescription,
  setChannelFolder,
  setDefaultChannel,
  unarchiveChannel,
} from '../model/channel-changes.js';
import {
  accessForAdministration,
  accessStream,
  checkCreation,
  createChannelRow,
  hasContentAccess,
  isSubscribed,
  streamById,
  subscriberIds,
  type StreamRow,
} from '../model/channels.js';
import { folderById } from '../model/folders.js';
import { sendSubscriptionNotices } from '../model/notices.js';
import { subscribeUsers } from '../model/subscriptions.js';
import { isAdmin } from '../model/users.js';
import { resolvePrincipals } from './principals.js';

/** Zulip keeps channel descriptions on one line. */
export const oneLine = (description: string): string => description.replace(/\n/g, ' ');

/** The channel as the request left it so far (each change reads the row its predecessor wrote). */
const reread = (db: Parameters<typeof streamById>[0], stream: StreamRow): StreamRow => streamById(db, stream.id)!;

export const adminHandlers = {
  createChannel: bind(createChannel, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    const name = p.name.trim();
    checkNameAvailable(db, name);
    const creation = {
      creator: me,
      invite_only: p.invite_only,
      is_web_public: p.is_web_public,
      history_public_to_subscribers: p.history_public_to_subscribers,
      is_default: p.is_default_stream,
      folder_id: p.folder_id === undefined ? null : folderById(db, p.folder_id).id,
    };
    checkCreation(creation);
    const subscribers = p.subscribers.length ? resolvePrincipals(ctx, p.subscribers) : [];
    const stream = createChannelRow(db, { name, description: oneLine(p.description) }, creation, ctx.nowSeconds());
    announceCreated(db, ctx, [stream], p.is_default_stream);
    const { subscribed } = subscribeUsers(db, ctx, [stream], subscribers, new Map());
    // Those subscribed while it is created are never told (API changelog: send_new_subscription_messages was
    // removed from POST /channels/create); the creation message and the announcement are sent.
    sendSubscriptionNotices(ctx, { actor: me, created: [stream], subscribed, subscribers, announce: p.announce, tellSubscribers: false });
    return { id: stream.id };
  }),

  updateStream: bind(updateStream, (ctx, p) => {
    const db = ctx.db;
    const me = callerOf(ctx);
    let stream = accessForAdministration(db, me, p.stream_id);
    const isPrivate = p.is_private ?? stream.invite_only === 1;
    const isWebPublic = p.is_web_public ?? stream.is_web_public === 1;
    const isDefault = p.is_default_stream ?? stream.is_default === 1;
    // A channel made private without saying otherwise gets protected history, as a new private one does.
    const historyPublic = p.history_public_to_subscribers ?? (p.is_private !== undefined ? !p.is_private : stream.history_public_to_subscribers === 1);
    if (isWebPublic && (!historyPublic || isPrivate)) throw badRequest('Invalid parameters');
    if (!isPrivate && !historyPublic) throw badRequest('Invalid parameters');
    if (isPrivate && isDefault) throw badRequest('A default channel cannot be private.');
    if (p.is_private !== undefined && !hasContentAccess(me, stream, isSubscribed(db, me.id, stream.id))) {
      throw badRequest('Channel content access is required.');
    }
    if (p.is_web_public) throw badRequest('Web-public channels are not enabled.');
    const folderId = p.folder_id === undefined || p.folder_id === null ? p.folder_id : folderById(db, p.folder_id).id;
    if (p.is_private !== undefined || p.is_web_public !== undefined || p.history_public_to_subscribers !== undefined) {
      changeChannelPermission(db, ctx, stream, { invite_only: isPrivate, history_public_to_subscribers: historyPublic, is_web_public: isWebPublic });
      stream = reread(db, stream);
    }
    if (p.is_default_stream !== undefined) {
      // views/streams.py update_stream_backend: CannotManageDefaultChannelError, after the privacy change.
      if (!isAdmin(me)) throw badRequest('You do not have permission to change default channels.');
      setDefaultChannel(db, ctx, stream, p.is_default_stream);
      stream = reread(db, stream);
    }
    if (p.is_archived === false) {
      unarchiveChannel(db, ctx, stream);
      stream = reread(db, stream);
    }
    if (p.description !== undefined) {
      setChannelDescription(db, ctx, stream, oneLine(p.description));
      stream = reread(db, stream);
    }
    if (p.new_name !== undefined) {
      const newName = p.new_name.trim();
      if (newName === stream.name) throw badRequest('Channel already has that name.');
      // Changing only the case of a name is no clash with itself.
      if (newName.toLowerCase() !== stream.name.toLowerCase()) checkNameAvailable(db, newName);
      renameChannel(db, ctx, stream, newName);
      stream = reread(db, stream);
    }
    if (folderId !== undefined) setChannelFolder(db, ctx, stream, folderId);
    return {};
  }),

  archiveStream: bind(archiveStream, (ctx, p) => {
    archiveChannel(ctx.db, ctx, accessForAdministration(ctx.db, callerOf(ctx), p.stream_id));
    return {};
  }),

  getSubscribers: bind(getSubscribers, (ctx, p) => {
    const stream = accessStream(ctx.db, callerOf(ctx), p.stream_id, { requireContent: false });
    return { subscribers: subscriberIds(ctx.db, stream.id) };
  }),

  addDefaultStream: bind(addDefaultStream, (ctx, p) => {
    const stream = accessStream(ctx.db, callerOf(ctx), p.stream_id);
    if (stream.invite_only) throw badRequest('Private channels cannot be made default.');
    setDefaultChannel(ctx.db, ctx, stream, true);
    return {};
  }),

  removeDefaultStream: bind(removeDefaultStream, (ctx, p) => {
    setDefaultChannel(ctx.db, ctx, accessStream(ctx.db, callerOf(ctx), p.stream_id, { requireContent: false }), false);
    return {};
  }),
} satisfies Partial<Handlers<'channels'>>;
