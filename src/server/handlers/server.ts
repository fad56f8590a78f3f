/** Public server settings and the password → API key exchange. */
import { ApiError, badRequest } from '../../api/errors.js';
import { fetchApiKey, getServerSettings, updateRealm } from '../../api/operations/server.js';
import type { ServerSettings } from '../../api/types.js';
import { bind, bindAsync, callerOf, type Handlers } from '../context.js';
import { checkLoginFailures, clearLoginFailures, recordLoginFailure } from '../model/login-failures.js';
import { recordLogin, userByEmail, userById } from '../model/users.js';
import { featureLevel } from '../feature-level.js';
import { getSetting, versionFields } from '../model/realm.js';
import { updateRealmSettings } from '../model/realm-settings.js';
import { renderHtml } from '../model/render.js';
import { verifyPassword } from '../secrets.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$|^[^\s@]+@localhost$/i;
/**
 * No address is longer (Django's e-mail validator stops there). Checked first: this endpoint is open to
 * anyone, and the pattern backtracks quadratically on a long run of dots.
 */
const MAX_EMAIL_LENGTH = 320;

const isEmailUsername = (username: string): boolean => username.length <= MAX_EMAIL_LENGTH && EMAIL.test(username);

export const handlers: Handlers<'server'> = {
  getServerSettings: bind(getServerSettings, (ctx): ServerSettings => {
    const db = ctx.db;
    const passwordAuth = getSetting(db, 'email_auth_enabled');
    return {
      authentication_methods: {
        password: passwordAuth,
        dev: false,
        email: passwordAuth,
        ldap: false,
        remoteuser: false,
        github: false,
        azuread: false,
        gitlab: false,
        google: false,
        apple: false,
        saml: false,
        'openid connect': false,
      },
      external_authentication_methods: [],
      ...versionFields(featureLevel(db)),
      push_notifications_enabled: false,
      is_incompatible: ctx.userAgent.startsWith('ZulipInvalid'),
      email_auth_enabled: passwordAuth,
      require_email_format_usernames: true,
      realm_url: ctx.realmUrl,
      realm_uri: ctx.realmUrl,
      realm_name: getSetting(db, 'name'),
      realm_icon: `${ctx.realmUrl}/static/images/logo/zulip-icon-128x128.png`,
      // Rendered, as zerver/views/auth.py get_server_settings answers it (get_realm_rendered_description).
      realm_description: renderHtml(db, getSetting(db, 'description')),
      realm_web_public_access_enabled: false,
    };
  }),

  updateRealm: bind(updateRealm, (ctx, p) => updateRealmSettings(ctx.db, ctx, callerOf(ctx), p)),

  // Async: the password is checked off the event loop (scrypt on the thread pool), with no transaction open
  // across the wait, and a failed attempt must be recorded even though the request fails.
  fetchApiKey: bindAsync(fetchApiKey, async (ctx, { username, password }) => {
    const db = ctx.db;
    const now = ctx.nowSeconds();
    const name = username.trim();
    if (!isEmailUsername(name)) throw badRequest('Enter a valid email address.');
    checkLoginFailures(db, name, ctx.source, now);
    // Every refusal past this point counts against the username and the source (login-failures.ts).
    const refuse = (error: ApiError): never => {
      ctx.tx(() => recordLoginFailure(db, name, ctx.source, now));
      throw error;
    };
    if (!getSetting(db, 'email_auth_enabled')) {
      refuse(new ApiError('Password authentication is disabled in this organization', 'PASSWORD_AUTH_DISABLED', 401));
    }
    const user = userByEmail(db, username);
    // A real server reports deactivation before it looks at the password.
    if (user && !user.is_active) refuse(new ApiError('Account is deactivated', 'USER_DEACTIVATED', 401));
    const ok = password !== '' && (await verifyPassword(password, user && !user.is_bot ? user.password_hash : null));
    // Read again after the wait: the account may have been deactivated or its password changed meanwhile.
    const current = user ? userById(db, user.id) : undefined;
    if (!ok || !current || current.password_hash !== user?.password_hash) {
      return refuse(new ApiError('Your username or password is incorrect', 'AUTHENTICATION_FAILED', 401));
    }
    if (!current.is_active) refuse(new ApiError('Account is deactivated', 'USER_DEACTIVATED', 401));
    ctx.tx(() => {
      clearLoginFailures(db, name, ctx.source);
      recordLogin(db, current.id, now);
    });
    return { api_key: current.api_key, email: current.email, user_id: current.id };
  }),
};
