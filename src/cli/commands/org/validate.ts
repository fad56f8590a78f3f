import { defineCommand } from '../../command/command.js';
import { flag } from '../../core/flags.js';
import { readDocument } from '../../org/file.js';
import { jsonSchema } from '../../org/json-schema.js';
import { managedSections } from '../../org/document.js';

export const fileFlag = flag.required(flag.string('-f, --file <file>', 'the organization file (YAML or JSON)', { complete: 'files' }), '-f FILE is required');

export const validateCommand = defineCommand({
  path: ['org', 'validate'],
  summary: 'check an organization file offline: schema, references, duplicates',
  description:
    'Checks a file without reading the server: every key known (an unknown one is named with its path and the key it may ' +
    'be a typo of), every value of its type, references between sections (a channel member or group member that users ' +
    'does not list, when the file has users; a group a setting names that groups does not list and is not a system group ' +
    "such as role:members; a channel's folder that folders does not list), and no ID or natural key twice in a section. " +
    'Exit 0 when valid; otherwise exit 2, every problem listed.',
  examples: ['chatctl org validate -f org.yaml'],
  options: { file: fileFlag },
  async run(opts, ctx) {
    const doc = await readDocument(ctx, opts.file);
    const sections = managedSections(doc);
    ctx.info(`chatctl: ${opts.file} is valid (${sections.length ? sections.join(', ') : 'no sections'} managed)`);
  },
});

export const schemaCommand = defineCommand({
  path: ['org', 'schema'],
  summary: 'print the JSON Schema of organization files, for editors',
  description:
    'Prints the JSON Schema (draft 2020-12) of an organization file, made from the same declarations `org validate` checks ' +
    'with and the parameter types of the API catalogue. Save it beside your file as org.schema.json: the comment `org export` ' +
    'writes at the top of a YAML file points editors with the YAML language server at it.',
  examples: ['chatctl org schema > org.schema.json'],
  async run(_opts, ctx) {
    ctx.io.stdout.write(`${JSON.stringify(jsonSchema(), null, 2)}\n`);
  },
});
