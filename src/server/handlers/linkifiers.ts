/** Linkifiers: listing (anyone), adding, replacing, removing and reordering (administrators). */
import { addLinkifier, getLinkifiers, removeLinkifier, reorderLinkifiers, updateLinkifier } from '../../api/operations/linkifiers.js';
import { bind, type Binding } from '../context.js';
import * as linkifiers from '../model/linkifiers.js';

export const bindings: Binding[] = [
  bind(getLinkifiers, (ctx) => ({ linkifiers: linkifiers.listLinkifiers(ctx.db) })),

  bind(addLinkifier, (ctx, p) => ({ id: linkifiers.createLinkifier(ctx.db, ctx, p) })),

  bind(updateLinkifier, (ctx, { filter_id, ...given }) => {
    linkifiers.replaceLinkifier(ctx.db, ctx, filter_id, given);
    return {};
  }),

  bind(removeLinkifier, (ctx, p) => {
    linkifiers.deleteLinkifier(ctx.db, ctx, p.filter_id);
    return {};
  }),

  bind(reorderLinkifiers, (ctx, p) => {
    linkifiers.reorderLinkifiers(ctx.db, ctx, p.ordered_linkifier_ids);
    return {};
  }),
];
