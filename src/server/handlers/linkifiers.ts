/** Linkifiers: listing (anyone), adding, replacing, removing and reordering (administrators). */
import { badRequest } from '../../api/errors.js';
import { addLinkifier, getLinkifiers, removeLinkifier, reorderLinkifiers, updateLinkifier } from '../../api/operations/linkifiers.js';
import { bind, type Binding, type HandlerContext } from '../context.js';
import { insertLinkifier, listLinkifiers, replacementOf, updateLinkifierRow, validateLinkifier } from '../model/linkifiers.js';

const NOT_FOUND = 'Linkifier not found.';

/** The full list to every active user; the empty legacy `realm_filters` event follows, as on a Zulip server. */
function notifyLinkifiers(ctx: HandlerContext): void {
  const active = (ctx.db.prepare('SELECT id FROM users WHERE is_active = 1').all() as { id: number }[]).map((u) => u.id);
  ctx.emit({ type: 'realm_linkifiers', realm_linkifiers: listLinkifiers(ctx.db) }, active);
  ctx.emit({ type: 'realm_filters', realm_filters: [] }, active);
}

export const bindings: Binding[] = [
  bind(getLinkifiers, (ctx) => ({ linkifiers: listLinkifiers(ctx.db) })),

  bind(addLinkifier, (ctx, p) => {
    validateLinkifier(ctx.db, p);
    const id = insertLinkifier(ctx.db, p);
    notifyLinkifiers(ctx);
    return { id };
  }),

  bind(updateLinkifier, (ctx, { filter_id, ...given }) => {
    const input = replacementOf(ctx.db, filter_id, given);
    if (!input) throw badRequest(NOT_FOUND);
    validateLinkifier(ctx.db, input, filter_id);
    updateLinkifierRow(ctx.db, filter_id, input);
    notifyLinkifiers(ctx);
    return {};
  }),

  bind(removeLinkifier, (ctx, p) => {
    if (ctx.db.prepare('DELETE FROM linkifiers WHERE id = ?').run(p.filter_id).changes === 0) throw badRequest(NOT_FOUND);
    notifyLinkifiers(ctx);
    return {};
  }),

  bind(reorderLinkifiers, (ctx, p) => {
    const ids = p.ordered_linkifier_ids;
    if (new Set(ids).size < ids.length) throw badRequest('The ordered list must not contain duplicated linkifiers');
    const existing = listLinkifiers(ctx.db).map((l) => l.id);
    if (existing.length !== ids.length || !existing.every((id) => ids.includes(id))) {
      throw badRequest('The ordered list must enumerate all existing linkifiers exactly once');
    }
    if (ids.length === 0) return {};
    const setOrder = ctx.db.prepare('UPDATE linkifiers SET "order" = ? WHERE id = ?');
    ids.forEach((id, order) => setOrder.run(order, id));
    notifyLinkifiers(ctx);
    return {};
  }),
];
