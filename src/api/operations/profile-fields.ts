/** Custom profile fields: the organization's extra fields on user profiles (phone, pronouns, GitHub ...). */
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
    name: p.def(s.string({ strip: true }), '', { doc: 'label (at most 40 characters)' }),
    hint: p.def(s.string(), '', { doc: 'help text (at most 80 characters)' }),
    field_type: p.req(s.int(), { doc: '1 short text, 2 long text, 3 select, 4 date, 5 link, 6 users, 7 external account, 8 pronouns' }),
    field_data: p.opt(s.dict(s.any()), { doc: 'select: {"key": {"text", "order"}}; external account: {"subtype", "url_pattern"?}' }),
    display_in_profile_summary: p.def(s.bool(), false, { minFeatureLevel: 146 }),
    required: p.def(s.bool(), false, { minFeatureLevel: 244 }),
    editable_by_user: p.def(s.bool(), true, { doc: 'whether users may edit their own value', minFeatureLevel: 296 }),
  },
  openapiPath: '/realm/profile_fields',
});

/** Every operation above, by name: src/api/catalogue.ts collects these records. */
export const profileFieldsOps = {
  getCustomProfileFields,
  createCustomProfileField,
} as const;
