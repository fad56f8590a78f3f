/**
 * Organization files on disk: YAML or JSON in (YAML is a superset, so either parses), YAML or JSON out.
 * The YAML library is loaded only by the commands that read or write a file, so start-up does not pay for it.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { systemReason } from '../../errno.js';
import type { Context } from '../command/context.js';
import { ChatctlError, usageError } from '../core/errors.js';
import { asDocument, InvalidDocument } from './document.js';
import type { OrgDoc } from './model.js';

export type FileFormat = 'yaml' | 'json';

/** Where an editor finds the schema: `chatctl org schema > org.schema.json` writes it. */
const SCHEMA_COMMENT = '# yaml-language-server: $schema=org.schema.json';

/** The parsed text of a file, not yet validated. */
export async function readValue(ctx: Pick<Context, 'signal'>, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, { encoding: 'utf8', signal: ctx.signal });
  } catch (e) {
    throw usageError(`cannot read ${file}: ${systemReason(e)}`);
  }
  if (/\.json$/i.test(file)) {
    try {
      // JSON.parse refuses the byte-order mark some editors start a UTF-8 file with; the YAML parser skips it.
      return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
    } catch (e) {
      throw usageError(`${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const { parseDocument } = await import('yaml');
  const parsed = parseDocument(text, { uniqueKeys: true });
  if (parsed.errors.length) throw usageError(`${file} is not valid YAML: ${parsed.errors[0]!.message.split('\n')[0]}`);
  return parsed.toJS({ maxAliasCount: 100 }) as unknown;
}

/** A file read and validated; every problem is listed in the usage error (exit 2). */
export async function readDocument(ctx: Pick<Context, 'signal'>, file: string): Promise<OrgDoc> {
  const value = await readValue(ctx, file);
  try {
    return asDocument(value);
  } catch (e) {
    if (e instanceof InvalidDocument)
      throw usageError(`${file}: ${e.problems.join(`\n  ${file}: `)}`, `${e.problems.length} problem(s); chatctl org schema prints what a file may hold`);
    throw e;
  }
}

/** A document as text. */
export async function formatDocument(doc: OrgDoc, format: FileFormat): Promise<string> {
  if (format === 'json') return `${JSON.stringify(doc, null, 2)}\n`;
  const { stringify } = await import('yaml');
  return `${SCHEMA_COMMENT}\n${stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

/** Writes a file whole or not at all (a temporary file renamed into place). */
export async function writeWhole(file: string, text: string, mode = 0o644): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(tmp, text, { mode });
    await rename(tmp, file);
  } catch (e) {
    throw new ChatctlError(`cannot write ${file}: ${systemReason(e)}`);
  }
}
