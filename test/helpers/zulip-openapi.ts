/**
 * The real Zulip server's OpenAPI description (feature level 263), vendored in the repository with its source
 * and licence (test/fixtures/zulip-openapi/README.md) so that a fresh clone's tests need nothing beside it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const PATH = fileURLToPath(new URL('../fixtures/zulip-openapi/zulip.yaml', import.meta.url));

/** A freshly parsed copy: callers cache it and may rewrite it (into JSON Schema, say) without touching another's. */
export const readZulipOpenApi = (): unknown => parse(readFileSync(PATH, 'utf8'));
