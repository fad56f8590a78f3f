/**
 * The JSON Schema (draft 2020-12) of an organization file, converted from the same schemas validation
 * reads: the section declarations and the catalogue's parameter schemas. An editor given it (the
 * `yaml-language-server` comment export writes) completes and checks a file as it is typed.
 */
import type { Schema } from '../../api/schema.js';
import { describePath, documentSchema } from './document.js';
import { isObj, type Json, type Obj } from './model.js';

function convert(schema: Schema): Obj {
  switch (schema.t) {
    case 'string':
      return {
        type: 'string',
        ...(schema.oneOf ? { enum: [...schema.oneOf] } : {}),
        ...(schema.maxLength !== undefined ? { maxLength: schema.maxLength } : {}),
        ...(schema.minLength !== undefined ? { minLength: schema.minLength } : {}),
      };
    case 'int':
      return {
        type: 'integer',
        ...(schema.oneOf ? { enum: [...schema.oneOf] } : {}),
        ...(schema.min !== undefined ? { minimum: schema.min } : {}),
        ...(schema.max !== undefined ? { maximum: schema.max } : {}),
      };
    case 'number':
      return { type: 'number' };
    case 'bool':
      return { type: 'boolean' };
    case 'null':
      return { type: 'null' };
    case 'list':
      return { type: 'array', items: convert(schema.of), ...(schema.maxItems < Number.MAX_SAFE_INTEGER ? { maxItems: schema.maxItems } : {}) };
    case 'dict':
      return { type: 'object', additionalProperties: convert(schema.of) };
    case 'object': {
      const required = Object.entries(schema.fields).flatMap(([k, f]) => (f.required ? [k] : []));
      return {
        type: 'object',
        properties: Object.fromEntries(Object.entries(schema.fields).map(([k, f]) => [k, convert(f.schema)])),
        ...(required.length ? { required } : {}),
        additionalProperties: schema.extra === true,
      };
    }
    case 'union':
      return { anyOf: schema.of.map(convert), ...(schema.describe ? { description: schema.describe } : {}) };
    case 'any':
      return {};
  }
}

/** Adds the declarations' words as descriptions: each section's, and each field's. */
function describe(root: Obj): Obj {
  const props = root.properties;
  if (typeof props !== 'object' || props === null || Array.isArray(props)) return root;
  for (const [section, node] of Object.entries(props)) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) continue;
    const doc = describePath(section);
    if (doc) node.description = doc;
    const item: Json | undefined = node.items ?? node;
    const fields = isObj(item) ? item.properties : undefined;
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) continue;
    for (const [field, f] of Object.entries(fields)) {
      const words = describePath(section, field);
      if (words && isObj(f)) f.description = words;
    }
  }
  return root;
}

export function jsonSchema(): Obj {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://chatctl.dev/schemas/org-v1.json',
    title: 'chatctl organization file (chatctl: org/v1)',
    ...describe(convert(documentSchema())),
  };
}
