/**
 * The embedded server's public entry for what the CLI may know without loading it: the names of the operator
 * permissions (for help and validation) and how a store too busy to write is recognised and said. It imports
 * no package, so commands may name it at start-up; what opens an organization is in embedded.ts.
 */
export { OPERATOR_PERMISSIONS, type OperatorPermission } from './operator-permissions.js';
export { BUSY_MESSAGE, isBusy } from './store/busy.js';
