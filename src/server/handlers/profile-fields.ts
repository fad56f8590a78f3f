/** Custom profile fields: their definitions (administrators), and the caller's own values of them. */
import {
  createCustomProfileField,
  deleteCustomProfileField,
  getCustomProfileFields,
  removeOwnProfileData,
  reorderCustomProfileFields,
  updateCustomProfileField,
  updateOwnProfileData,
} from '../../api/operations/profile-fields.js';
import { bind, callerOf, type Handlers } from '../context.js';
import { allFields, createField, deleteField, fieldToWire, removeProfileValue, reorderFields, setProfileValues, updateField } from '../model/profile-fields.js';

export const handlers: Handlers<'profileFields'> = {
  getCustomProfileFields: bind(getCustomProfileFields, (ctx) => ({ custom_fields: allFields(ctx.db).map(fieldToWire) })),

  createCustomProfileField: bind(createCustomProfileField, (ctx, p) => ({ id: createField(ctx.db, ctx, { ...p, field_data: p.field_data ?? {} }).id })),

  updateCustomProfileField: bind(updateCustomProfileField, (ctx, { field_id, ...changes }) => {
    updateField(ctx.db, ctx, field_id, changes);
    return {};
  }),

  deleteCustomProfileField: bind(deleteCustomProfileField, (ctx, p) => {
    deleteField(ctx.db, ctx, p.field_id);
    return {};
  }),

  reorderCustomProfileFields: bind(reorderCustomProfileFields, (ctx, p) => {
    reorderFields(ctx.db, ctx, p.order);
    return {};
  }),

  updateOwnProfileData: bind(updateOwnProfileData, (ctx, p) => {
    const me = callerOf(ctx);
    setProfileValues(ctx.db, ctx, me, me, p.data);
    return {};
  }),

  removeOwnProfileData: bind(removeOwnProfileData, (ctx, p) => {
    const me = callerOf(ctx);
    for (const id of p.data) removeProfileValue(ctx.db, ctx, me, me, id);
    return {};
  }),
};
