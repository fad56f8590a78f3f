/** `chatctl invite`: one module per verb, loaded together when argv names the noun (commands/index.ts). */
import { linkCreateCommand } from './link-create.js';
import { listCommand } from './list.js';
import { resendCommand } from './resend.js';
import { revokeCommand } from './revoke.js';
import { sendCommand } from './send.js';

export const commands = [sendCommand, listCommand, revokeCommand, resendCommand, linkCreateCommand];
