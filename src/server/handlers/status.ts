/** User status: reading a user's status, setting one's own, and administrators setting another user's. */
import { getUserStatus, updateOwnStatus, updateUserStatus } from '../../api/operations/status.js';
import { bind, callerOf, type Handlers } from '../context.js';
import { statusOf, updateStatus } from '../model/user-status.js';
import { accessUser, userById } from '../model/users.js';

export const handlers: Handlers<'status'> = {
  getUserStatus: bind(getUserStatus, (ctx, p) => {
    const target = accessUser(callerOf(ctx), userById(ctx.db, p.user_id), { forAdmin: false });
    return { status: statusOf(target) };
  }),

  updateOwnStatus: bind(updateOwnStatus, (ctx, p) => {
    updateStatus(ctx.db, ctx, callerOf(ctx), p);
    return {};
  }),

  updateUserStatus: bind(updateUserStatus, (ctx, p) => {
    const target = accessUser(callerOf(ctx), userById(ctx.db, p.user_id), { forAdmin: true });
    updateStatus(ctx.db, ctx, target, p);
    return {};
  }),
};
