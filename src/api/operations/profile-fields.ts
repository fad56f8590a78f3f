/** Custom profile fields: the organization's extra fields on user profiles (phone, pronouns, GitHub ...). */
import { LIMITS } from '../limits.js';
import { operation, p } from '../operation.js';
import { s } from '../schema.js';

export const PROFILE_FIELD_TYPES = {
  short_text: 1,
  long_text: 2,
  select: 3,
  date: 4,
  link: 5,
  users: 6,
  external_account: 7,
  pronouns: 8,
} as const;

export type ProfileFieldType = (typeof PROFILE_FIELD_TYPES)[keyof typeof PROFILE_FIELD_TYPES];

/** A field definition; `field_data` is a JSON string (choices of a select, subtype of an external account). */
export interface CustomProfileField {
  id: number;
  type: ProfileFieldType;
  order: number;
  name: string;
  hint: string;
  field_data: string;
  required: boolean;
  editable_by_user: boolean;
  display_in_profile_summary?: true;
}

export const getCustomProfileFields = operation<{ custom_fields: CustomProfileField[] }>()({
  name: 'get-custom-profile-fields',
  method: 'GET',
  path: '/realm/profile_fields',
  summary: "The organization's custom profile fields, in display order",
  access: 'user',
  cacheable: true,
  params: {},
  openapiPath: '/realm/profile_fields',
});

export const createCustomProfileField = operation<{ id: number }>()({
  name: 'create-custom-profile-field',
  method: 'POST',
  path: '/realm/profile_fields',
  summary: 'Add a custom profile field (administrators)',
  access: 'admin',
  params: {
    name: p.def(s.string({ strip: true }), '', { doc: `label (at most ${LIMITS.profileFieldName} characters)` }),
    hint: p.def(s.string(), '', { doc: `help text (at most ${LIMITS.profileFieldHint} characters)` }),
    field_type: p.req(s.int(), { doc: '1 short text, 2 long text, 3 select, 4 date, 5 link, 6 users, 7 external account, 8 pronouns' }),
    field_data: p.opt(s.dict(s.any()), { doc: 'select: {"key": {"text", "order"}}; external account: {"subtype", "url_pattern"?}' }),
    display_in_profile_summary: p.def(s.bool(), false, { minFeatureLevel: 146 }),
    required: p.def(s.bool(), false, { minFeatureLevel: 244 }),
    editable_by_user: p.def(s.bool(), true, { doc: 'whether users may edit their own value', minFeatureLevel: 296 }),
  },
  openapiPath: '/realm/profile_fields',
});

const fieldPath = { field_id: p.path(s.int()) };

/** Absent parameters keep their value (zerver/views/custom_profile_fields.py update_realm_custom_profile_field). */
export const updateCustomProfileField = operation<Record<string, never>>()({
  name: 'update-custom-profile-field',
  method: 'PATCH',
  path: '/realm/profile_fields/{field_id}',
  summary: "Change a custom profile field's label, hint, choices or flags (administrators)",
  access: 'admin',
  params: {
    ...fieldPath,
    name: p.opt(s.string({ strip: true }), { doc: `label (at most ${LIMITS.profileFieldName} characters)` }),
    hint: p.opt(s.string(), { doc: `help text (at most ${LIMITS.profileFieldHint} characters)` }),
    field_data: p.opt(s.dict(s.any()), { doc: 'select: the whole new set of choices (values of removed choices are cleared)' }),
    display_in_profile_summary: p.opt(s.bool(), { minFeatureLevel: 146 }),
    required: p.opt(s.bool(), { minFeatureLevel: 244 }),
    editable_by_user: p.opt(s.bool(), { minFeatureLevel: 296 }),
  },
  idempotent: true,
});

export const deleteCustomProfileField = operation<Record<string, never>>()({
  name: 'delete-custom-profile-field',
  method: 'DELETE',
  path: '/realm/profile_fields/{field_id}',
  summary: "Delete a custom profile field and every user's value of it (administrators)",
  access: 'admin',
  params: fieldPath,
});

export const reorderCustomProfileFields = operation<Record<string, never>>()({
  name: 'reorder-custom-profile-fields',
  method: 'PATCH',
  path: '/realm/profile_fields',
  summary: 'Set the display order of the custom profile fields (administrators)',
  access: 'admin',
  params: {
    order: p.req(s.list(s.int()), { doc: 'JSON list of every field ID, in the new order' }),
  },
  idempotent: true,
  openapiPath: '/realm/profile_fields',
});

/** One entry of `data` for the caller's own values: never null (DELETE removes values). */
export interface OwnProfileDataUpdate {
  id: number;
  value: string | number[];
}

export const updateOwnProfileData = operation<Record<string, never>>()({
  name: 'update-own-profile-data',
  method: 'PATCH',
  path: '/users/me/profile_data',
  summary: 'Set your own values of custom profile fields (fields users may edit)',
  access: 'user',
  bots: false,
  params: {
    data: p.req(s.list(s.object({ id: s.int(), value: s.union(s.string(), s.list(s.int()), 'a string or a list of user IDs') })), {
      doc: 'JSON list of {"id": field ID, "value": ...}',
    }),
  },
  idempotent: true,
});

export const removeOwnProfileData = operation<Record<string, never>>()({
  name: 'remove-own-profile-data',
  method: 'DELETE',
  path: '/users/me/profile_data',
  summary: 'Clear your own values of custom profile fields',
  access: 'user',
  bots: false,
  params: {
    data: p.req(s.list(s.int()), { doc: 'JSON list of field IDs' }),
  },
  idempotent: true,
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const profileFieldsOps = {
  getCustomProfileFields,
  createCustomProfileField,
  updateCustomProfileField,
  deleteCustomProfileField,
  reorderCustomProfileFields,
  updateOwnProfileData,
  removeOwnProfileData,
} as const;
