#!/usr/bin/env node
// The command reference (docs/commands/) and the man pages (man/), written from the command declarations by
// tsc's output in dist/ (npm run docs builds first, as npm run completions does), and the man pages listed in
// package.json `man`, which npm installs. Files of either folder that the declarations no longer make (a noun
// removed) are deleted; test/cli/manual.test.ts fails when the checked-in files differ from what this writes.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { allCommands } = await import(new URL('../dist/cli/commands/completion.js', import.meta.url).href);
const { NOUNS } = await import(new URL('../dist/cli/commands/index.js', import.meta.url).href);
const { renderManual, REFERENCE_DIR, MAN_DIR } = await import(new URL('../dist/cli/entry/manual.js', import.meta.url).href);

const files = renderManual(NOUNS, await allCommands());
for (const dir of [REFERENCE_DIR, MAN_DIR]) {
  mkdirSync(join(root, dir), { recursive: true });
  for (const name of readdirSync(join(root, dir))) if (!files.has(`${dir}/${name}`)) rmSync(join(root, dir, name));
}
for (const [path, text] of files) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
const pkgPath = join(root, 'package.json');
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'));
pkg.man = [...files.keys()].filter((path) => path.startsWith(`${MAN_DIR}/`));
writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`${files.size} files in ${REFERENCE_DIR}/ and ${MAN_DIR}/`);
