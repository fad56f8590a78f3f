/**
 * Which commands use each operation a current server serves, by noun (`chatctl channels …`), or `api only`
 * when only `chatctl api` reaches it. A new operation must be classified here before `tsc -p
 * tsconfig.test.json` passes; operation-commands.test.ts checks the classification against what the
 * commands' modules import, so it cannot go stale.
 */
import type { AreaName, ServedName } from '../../src/api/catalogue.js';

export const API_ONLY = 'api only';

/** Where an operation is used: the nouns of the commands that call it, or only through `chatctl api`. */
type Use = readonly [string, ...string[]] | typeof API_ONLY;

export const OPERATION_COMMANDS: { readonly [A in AreaName]: { readonly [K in ServedName<A>]: Use } } = {
  server: {
    getServerSettings: ['login', 'server'],
    updateRealm: ['org', 'server'],
    fetchApiKey: ['auth', 'init', 'login', 'org'],
  },
  users: {
    getUsers: ['__complete', 'channels', 'folders', 'groups', 'invite', 'messages', 'org', 'status', 'subscriptions', 'topics', 'typing', 'users'],
    getOwnUser: ['attachments', 'login', 'org', 'webhook', 'whoami'],
    getUser: ['users', 'webhook'],
    getUserByEmail: ['users', 'webhook'],
    createUser: ['init', 'users'],
    updateUser: ['init', 'org', 'users'],
    updateUserByEmail: API_ONLY,
    deactivateUser: ['org', 'users'],
    reactivateUser: ['org', 'users'],
  },
  messages: {
    sendMessage: ['init', 'messages'],
    getMessages: ['api', 'channels', 'webhook'],
    getMessage: API_ONLY,
    updateMessage: ['init', 'messages'],
    getMessageHistory: ['messages'],
    updateMessageFlags: API_ONLY,
    updateMessageFlagsForNarrow: ['flags'],
    renderMessage: API_ONLY,
  },
  reactions: {
    addReaction: ['init', 'reactions'],
    removeReaction: ['reactions'],
    getCustomEmoji: API_ONLY,
    uploadCustomEmoji: API_ONLY,
    deactivateCustomEmoji: API_ONLY,
  },
  channels: {
    getSubscriptions: ['channels', 'messages', 'subscriptions', 'topics', 'typing'],
    subscribe: ['channels', 'init', 'org'],
    unsubscribe: ['channels', 'org'],
    updateSubscriptionSettings: ['subscriptions'],
    updateSubscription: API_ONLY,
    updateSubscriptionPost: API_ONLY,
    getStreams: ['__complete', 'channels', 'folders', 'groups', 'invite', 'messages', 'status', 'subscriptions', 'topics', 'typing', 'users'],
    getStream: ['channels'],
    getChannelTopics: API_ONLY,
    createChannel: ['channels', 'org'],
    updateStream: ['channels', 'org'],
    archiveStream: ['channels', 'org'],
    getSubscribers: ['channels', 'org'],
    addDefaultStream: ['channels'],
    removeDefaultStream: ['channels'],
    updateUserTopic: ['messages', 'topics', 'typing'],
    muteTopic: API_ONLY,
  },
  groups: {
    createUserGroup: ['groups', 'init', 'org'],
    getUserGroups: ['channels', 'folders', 'groups', 'invite', 'messages', 'org', 'status', 'subscriptions', 'topics', 'typing', 'users'],
    updateUserGroup: ['groups', 'org'],
    deactivateUserGroup: ['groups', 'org'],
    getUserGroupMembers: ['channels', 'groups'],
    getIsUserGroupMember: API_ONLY,
    updateUserGroupMembers: ['groups', 'org'],
    updateUserGroupSubgroups: API_ONLY,
    getUserGroupSubgroups: API_ONLY,
  },
  presence: {
    updatePresence: ['presence'],
    getRealmPresence: API_ONLY,
    getUserPresence: API_ONLY,
  },
  events: {
    register: ['api', 'attachments', 'events', 'messages', 'org', 'presence', 'topics', 'typing', 'users', 'webhook'],
    getEvents: API_ONLY,
    deleteQueue: ['api', 'attachments', 'events', 'messages', 'org', 'presence', 'topics', 'typing', 'users', 'webhook'],
  },
  folders: {
    getChannelFolders: ['channels', 'folders', 'groups', 'invite', 'messages', 'status', 'subscriptions', 'topics', 'typing', 'users'],
    createChannelFolder: ['folders', 'init', 'org'],
    updateChannelFolder: ['folders', 'org'],
    reorderChannelFolders: ['org'],
  },
  typing: {
    setTypingStatus: ['typing'],
    setMessageEditTypingStatus: ['typing'],
  },
  attachments: {
    uploadFile: ['api', 'attachments', 'init', 'messages'],
    getAttachments: ['attachments'],
    removeAttachment: ['attachments'],
  },
  linkifiers: {
    getLinkifiers: ['linkifiers'],
    addLinkifier: ['init', 'linkifiers', 'org'],
    updateLinkifier: ['linkifiers', 'org'],
    removeLinkifier: ['linkifiers', 'org'],
    reorderLinkifiers: ['linkifiers', 'org'],
  },
  webhooks: {
    getOutgoingWebhookPayload: API_ONLY,
    getZulipOutgoingWebhookPayload: API_ONLY,
  },
  invites: {
    sendInvites: ['invite'],
    getInvites: ['invite'],
    revokeInvite: ['invite'],
    resendInvite: ['invite'],
    createInviteLink: ['invite'],
    revokeInviteLink: ['invite'],
  },
  domains: {
    getRealmDomains: ['domains'],
    addRealmDomain: ['domains', 'org'],
    updateRealmDomain: ['domains', 'org'],
    removeRealmDomain: ['domains', 'org'],
  },
  status: {
    getUserStatus: ['status'],
    updateOwnStatus: API_ONLY,
    updateUserStatus: ['status'],
  },
  bots: {
    createBot: ['init'],
    getBots: API_ONLY,
    deactivateBot: ['users'],
  },
  profileFields: {
    getCustomProfileFields: API_ONLY,
    createCustomProfileField: ['init', 'org'],
    updateCustomProfileField: ['org'],
    deleteCustomProfileField: ['org'],
    reorderCustomProfileFields: ['org'],
    updateOwnProfileData: API_ONLY,
    removeOwnProfileData: API_ONLY,
  },
};
