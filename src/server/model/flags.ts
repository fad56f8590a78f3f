/** Per-user message flags, stored as bits of `user_messages.flags`; names as on the wire. */
export const FLAG_BITS = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  group_mentioned: 64,
  has_alert_word: 128,
  historical: 256,
} as const;

export type FlagName = keyof typeof FLAG_BITS;

/** Above every set of flags: each flag is a bit of its own, from the lowest up. */
export const FLAG_SPAN = 2 ** Object.keys(FLAG_BITS).length;

/** The flags a client may change with the flags endpoints. */
export const EDITABLE_FLAGS: readonly FlagName[] = ['read', 'starred', 'collapsed'];

export const flagNames = (bits: number): FlagName[] => (Object.keys(FLAG_BITS) as FlagName[]).filter((name) => (bits & FLAG_BITS[name]) !== 0);
