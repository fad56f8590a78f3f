/** Linkifiers: listing (anyone), adding, replacing, removing and reordering (administrators). */
import { addLinkifier, getLinkifiers, removeLinkifier, reorderLinkifiers, updateLinkifier } from '../../api/operations/linkifiers.js';
import { bind, type Handlers } from '../context.js';
import * as linkifiers from '../model/linkifiers.js';

export const handlers: Handlers<'linkifiers'> = {
  getLinkifiers: bind(getLinkifiers, (ctx) => ({ linkifiers: linkifiers.listLinkifiers(ctx.db) })),

  addLinkifier: bind(addLinkifier, (ctx, p) => ({ id: linkifiers.createLinkifier(ctx.db, ctx, p) })),

  updateLinkifier: bind(updateLinkifier, (ctx, { filter_id, ...given }) => {
    linkifiers.replaceLinkifier(ctx.db, ctx, filter_id, given);
    return {};
  }),

  removeLinkifier: bind(removeLinkifier, (ctx, p) => {
    linkifiers.deleteLinkifier(ctx.db, ctx, p.filter_id);
    return {};
  }),

  reorderLinkifiers: bind(reorderLinkifiers, (ctx, p) => {
    linkifiers.reorderLinkifiers(ctx.db, ctx, p.ordered_linkifier_ids);
    return {};
  }),
};
