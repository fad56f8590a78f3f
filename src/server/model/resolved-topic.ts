/** What a resolved topic starts with (zerver/lib/topic.py RESOLVED_TOPIC_PREFIX). */
export const RESOLVED_TOPIC_PREFIX = '✔ ';
