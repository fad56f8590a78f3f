/** Custom profile field definitions: listing and creating them (values are set through update-user). */
import { createCustomProfileField, getCustomProfileFields } from '../../api/operations/profile-fields.js';
import { bind, type Handlers } from '../context.js';
import { allFields, createField, fieldToWire, notifyFieldsChanged } from '../model/profile-fields.js';
import { listeningUserIds } from '../model/event-queues.js';

export const handlers: Handlers<'profileFields'> = {
  getCustomProfileFields: bind(getCustomProfileFields, (ctx) => ({ custom_fields: allFields(ctx.db).map(fieldToWire) })),

  createCustomProfileField: bind(createCustomProfileField, (ctx, p) => {
    const field = createField(ctx.db, { ...p, field_data: p.field_data ?? {} });
    notifyFieldsChanged(ctx.db, ctx, listeningUserIds(ctx.db));
    return { id: field.id };
  }),
};
