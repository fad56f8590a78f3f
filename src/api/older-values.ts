/** Values whose spelling changed between feature levels, shared by the parameters that carry them. */
import type { OlderParam } from './operation.js';

/** The general-chat topic is "" from feature level 334; older servers know it as "(no topic)". */
export const EMPTY_TOPIC_BEFORE_334: readonly OlderParam<string>[] = [{ before: 334, value: (topic) => (topic === '' ? '(no topic)' : topic) }];

/** A direct conversation is `direct` from feature level 174; older servers call it `private`. */
export const DIRECT_TYPE_BEFORE_174: readonly OlderParam<string>[] = [{ before: 174, value: (type) => (type === 'direct' ? 'private' : type) }];

/** A channel message is type `channel` from feature level 248; older servers call it `stream`. */
export const CHANNEL_TYPE_BEFORE_248: readonly OlderParam<string>[] = [{ before: 248, value: (type) => (type === 'channel' ? 'stream' : type) }];

/**
 * `allow_empty_topic_name` came with empty topics, at feature level 334: an older server has no empty topic
 * to show, so what the parameter asks for holds there without it, and it is left out.
 */
export const EMPTY_TOPICS_FROM_334: readonly OlderParam<boolean>[] = [{ before: 334, value: () => undefined }];
