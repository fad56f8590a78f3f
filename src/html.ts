/** Escaping text for HTML, as Zulip's renderer escapes it (text and double-quoted attribute values). */
export const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
