/** Linkifiers: patterns turned into links in messages and topics. */
import { operation, p } from '../operation.js';
import { s } from '../schema.js';

export interface Linkifier {
  id: number;
  pattern: string;
  url_template: string;
  example_input: string | null;
  reverse_template: string | null;
  alternative_url_templates: string[];
}

const linkifierParams = {
  pattern: p.req(s.string(), { doc: 'regular expression (Python syntax: named groups as (?P<name>...))' }),
  url_template: p.req(s.string(), { doc: 'RFC 6570 URL template using the named groups' }),
  example_input: p.opt(s.string(), { doc: 'a string the pattern matches (reverse linkifiers)' }),
  reverse_template: p.opt(s.string(), { doc: 'template giving the linkifier text back from a URL' }),
  alternative_url_templates: p.opt(s.list(s.string()), { doc: 'more URL templates, for reverse linkification only' }),
};

export const getLinkifiers = operation<{ linkifiers: Linkifier[] }>()({
  name: 'get-linkifiers',
  method: 'GET',
  path: '/realm/linkifiers',
  summary: "The organization's linkifiers, in the order they are applied",
  access: 'user',
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
