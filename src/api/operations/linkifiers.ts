/** Linkifiers: patterns turned into links in messages and topics. */
import { LIMITS } from '../limits.js';
import { declareOlder, olderCall } from '../older.js';
import { NotAtLevel, operation, p } from '../operation.js';
import { s } from '../schema.js';

export interface Linkifier {
  id: number;
  pattern: string;
  url_template: string;
  example_input: string | null;
  reverse_template: string | null;
  alternative_url_templates: string[];
}

/**
 * An RFC 6570 template as the `url_format_string` servers before 176 take: `{name}` becomes `%(name)s` and
 * a literal `%` doubles. A template using operators (`{+x}`, `{?x}` ...) has no such form.
 */
export function urlFormatOf(template: string): string {
  const operator = /\{[^}]*[^\w}][^}]*\}|\{\}/.exec(template);
  if (operator) throw new NotAtLevel(`the URL template expression ${operator[0]}`);
  return template.replace(/%/g, '%%').replace(/\{(\w+)\}/g, '%($1)s');
}

/** The RFC 6570 template a `url_format` stands for (the inverse of `urlFormatOf`). */
const templateOf = (format: string): string =>
  format.replace(/%\((\w+)\)s|%%/g, (_match, name: string | undefined) => (name === undefined ? '%' : `{${name}}`));

// The reverse-linkification fields came at 471: absent in a PATCH keeps them, "" removes them.
const linkifierParams = {
  pattern: p.req(s.string({ maxLength: LIMITS.linkifierPattern }), { doc: 'regular expression (Python syntax: named groups as (?P<name>...))' }),
  url_template: p.req(s.string(), {
    doc: 'RFC 6570 URL template using the named groups',
    older: [{ before: 176, name: 'url_format_string', value: urlFormatOf }],
  }),
  example_input: p.opt(s.string(), { doc: 'a string the pattern matches (reverse linkifiers; "" removes it)', minFeatureLevel: 471 }),
  reverse_template: p.opt(s.string(), { doc: 'template giving the linkifier text back from a URL ("" removes it)', minFeatureLevel: 471 }),
  alternative_url_templates: p.opt(s.list(s.string()), { doc: 'more URL templates, for reverse linkification only', minFeatureLevel: 471 }),
};

export const getLinkifiers = operation<{ linkifiers: Linkifier[] }>()({
  name: 'get-linkifiers',
  method: 'GET',
  path: '/realm/linkifiers',
  summary: "The organization's linkifiers, in the order they are applied",
  access: 'user',
  cacheable: true,
  params: {},
  minFeatureLevel: 54,
  openapiPath: '/realm/linkifiers',
});

export const addLinkifier = operation<{ id: number }>()({
  name: 'add-linkifier',
  method: 'POST',
  path: '/realm/filters',
  summary: 'Add a linkifier (administrators)',
  access: 'admin',
  params: linkifierParams,
  openapiPath: '/realm/filters',
});

export const updateLinkifier = operation<Record<string, never>>()({
  name: 'update-linkifier',
  method: 'PATCH',
  path: '/realm/filters/{filter_id}',
  summary: 'Replace the pattern and URL template of a linkifier (administrators)',
  access: 'admin',
  params: { filter_id: p.path(s.int()), ...linkifierParams },
  minFeatureLevel: 57,
  openapiPath: '/realm/filters/{filter_id}',
});

export const removeLinkifier = operation<Record<string, never>>()({
  name: 'remove-linkifier',
  method: 'DELETE',
  path: '/realm/filters/{filter_id}',
  summary: 'Remove a linkifier (administrators)',
  access: 'admin',
  params: { filter_id: p.path(s.int()) },
  openapiPath: '/realm/filters/{filter_id}',
});

export const reorderLinkifiers = operation<Record<string, never>>()({
  name: 'reorder-linkifiers',
  method: 'PATCH',
  path: '/realm/linkifiers',
  summary: 'Set the order linkifiers are applied in (administrators)',
  access: 'admin',
  params: { ordered_linkifier_ids: p.req(s.list(s.int()), { doc: 'every linkifier ID, once, in the new order' }) },
  minFeatureLevel: 202,
  openapiPath: '/realm/linkifiers',
});

// Before 176 each linkifier's template is `url_format`, in Python's %-format.
declareOlder(getLinkifiers, [
  {
    before: 176,
    calls: (params) => [olderCall(getLinkifiers, params)],
    response: (body) => ({
      ...body,
      linkifiers: (Array.isArray(body.linkifiers) ? body.linkifiers : []).map((l: Record<string, unknown>) =>
        typeof l.url_format === 'string' && l.url_template === undefined ? { ...l, url_template: templateOf(l.url_format) } : l,
      ),
    }),
  },
]);

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const linkifiersOps = {
  getLinkifiers,
  addLinkifier,
  updateLinkifier,
  removeLinkifier,
  reorderLinkifiers,
} as const;
