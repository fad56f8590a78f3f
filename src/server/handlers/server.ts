/** Public server settings and the password → API key exchange. */
import { ApiError, badRequest } from '../../api/errors.js';
import { RATE_LIMIT_MESSAGE } from '../../api/rate-limits.js';
import { fetchApiKey, getServerSettings } from '../../api/operations/server.js';
import type { ServerSettings } from '../../api/types.js';
import { bind, bindAsync, type Binding } from '../context.js';
import { LOGIN_FAILURE_LIMIT, LOGIN_FAILURE_WINDOW_SECS, pruneLoginFailures } from '../model/login-failures.js';
import { userByEmail } from '../model/users.js';
import { FEATURE_LEVEL, getSetting, SERVER_VERSION } from '../realm.js';
import { verifyPassword } from '../secrets.js';


const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$|^[^\s@]+@localhost$/i;
/**
 * No address is longer (Django's e-mail validator stops there). Checked first: this endpoint is open to
 * anyone, and the pattern backtracks quadratically on a long run of dots.
 */
const MAX_EMAIL_LENGTH = 320;

const isEmailUsername = (username: string): boolean => username.length <= MAX_EMAIL_LENGTH && EMAIL.test(username);

export const bindings: Binding[] = [
  bind(getServerSettings, (ctx): ServerSettings => {
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
      // Both names: the document's and a real server's, so clients of either kind read them.
      zulip_feature_level: FEATURE_LEVEL,
      zulip_version: SERVER_VERSION,
      zulip_merge_base: SERVER_VERSION,
      svc_feature_level: FEATURE_LEVEL,
      svc_version: SERVER_VERSION,
      svc_merge_base: SERVER_VERSION,
      push_notifications_enabled: false,
      is_incompatible: ctx.userAgent.startsWith('ZulipInvalid'),
      email_auth_enabled: passwordAuth,
      require_email_format_usernames: true,
      realm_url: ctx.realmUrl,
      realm_uri: ctx.realmUrl,
      realm_name: getSetting(db, 'name'),
      realm_icon: `${ctx.realmUrl}/static/images/logo/zulip-icon-128x128.png`,
      realm_description: getSetting(db, 'description'),
      realm_web_public_access_enabled: false,
    };
  }),

  // Async: a failed attempt must be recorded even though the request fails, and scrypt must not hold the
  // write lock.
  bindAsync(fetchApiKey, (ctx, { username, password }) => {
    const db = ctx.db;
    const now = ctx.now();
    if (!isEmailUsername(username.trim())) throw badRequest('Enter a valid email address.');
    const { n, oldest } = db
      .prepare('SELECT count(*) AS n, min(at) AS oldest FROM login_failures WHERE username = ? AND at > ?')
      .get(username.trim(), now - LOGIN_FAILURE_WINDOW_SECS) as { n: number; oldest: number | null };
    if (n >= LOGIN_FAILURE_LIMIT) {
      const retryAfter = Math.max(1, (oldest ?? now) + LOGIN_FAILURE_WINDOW_SECS - now);
      throw new ApiError(RATE_LIMIT_MESSAGE, 'RATE_LIMIT_HIT', 429, { 'retry-after': retryAfter }, {
        'retry-after': String(retryAfter),
      });
    }
    // Every refusal past this point counts against the username, as a server's authentication rate limit does.
    const refuse = (error: ApiError): never => {
      ctx.tx(() => {
        db.prepare('INSERT INTO login_failures (username, at) VALUES (?, ?)').run(username.trim(), now);
        // Each failure clears a few expired ones: the table stays the size of the window, serve or not.
        pruneLoginFailures(db, now, 10);
      });
      throw error;
    };
    if (!getSetting(db, 'email_auth_enabled')) {
      refuse(new ApiError('Password authentication is disabled in this organization', 'PASSWORD_AUTH_DISABLED', 401));
    }
    const user = userByEmail(db, username);
    // A real server reports deactivation before it looks at the password.
    if (user && !user.is_active) refuse(new ApiError('Account is deactivated', 'USER_DEACTIVATED', 401));
    const ok = password !== '' && verifyPassword(password, user && !user.is_bot ? user.password_hash : null);
    if (!ok || !user) return refuse(new ApiError('Your username or password is incorrect', 'AUTHENTICATION_FAILED', 401));
    ctx.tx(() => {
      db.prepare('DELETE FROM login_failures WHERE username = ?').run(username.trim());
      // An account made through the API joins, as far as date_joined tells, at its first login (2.1).
      db.prepare('UPDATE users SET date_joined = ?, date_joined_at_first_login = 0 WHERE id = ? AND date_joined_at_first_login = 1').run(now, user.id);
    });
    return { api_key: user.api_key, email: user.email, user_id: user.id };
  }),
];
