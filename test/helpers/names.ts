/** Names for fixtures that no other fixture of the test file has, so the tests of a file can share one organization. */

let counter = 0;

/** `prefix`, the separator and a number no earlier call in this test file returned: "chan 3", "group-4". */
export const unique = (prefix: string, separator = ' '): string => `${prefix}${separator}${++counter}`;

/** Eight random letters and digits: a part of a name or ID that will not repeat. */
export const randomToken = (): string => Math.random().toString(36).slice(2, 10);
