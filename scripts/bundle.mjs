#!/usr/bin/env node
// The CLI as one CommonJS file (dist/chatctl.cjs), built from tsc's output in dist/ (npm run build). Node 20's
// ES module loader spends most of a short command's start-up resolving, reading and linking modules one at a
// time: `chatctl whoami` loaded about 125 of chatctl's own. One CommonJS file needs no module loader at all,
// and keeps every module lazy that was lazy: esbuild runs a module's top level, and requires what it imports
// (Node's built-ins, packages), only when the module is first imported. Measured side by side (median of 21,
// 10,000 users, Node 20): whoami 170 -> 110 ms, `users list --json` 249 -> 184 ms as one ES module, and a
// further 10-30 ms as CommonJS. Packages but commander stay outside (the heavy ones load only in the commands that use
// them; better-sqlite3 has a native part). tsc's per-module output is what the tests, the benchmarks and the
// architecture checks use; this file is only what bin/chatctl.cjs runs (through bin/load-cli.cjs).
//
// The packages that are ES modules only are loaded with import(), and each import() goes through
// `importPackage`, which bin/load-cli.cjs passes in: on Node 20 the bundle runs from V8's code cache, and code
// from that cache cannot run import() itself there.
//
// Commander, which every command loads, is bundled too, so its code comes from the same cache; the bundle has
// no comments or layout, and is ASCII only, so the loader reads it as Latin-1 (no UTF-8 decoding). Together,
// interleaved runs of 61 rounds (10,000 users, Node 20, no CA bundle): `users list --json` 204.8 -> 189.3 ms,
// 1.21x -> 1.12x the bare floor; minifying alone changed nothing. Identifiers are not minified: CHATCTL_DEBUG's
// stack traces name the functions (esbuild numbers a name two modules share, e.g. commander's CommanderError2,
// as it did before), though their positions are on one long line.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = 'dist/chatctl.cjs';
const result = await build({
  absWorkingDir: root,
  entryPoints: ['dist/cli/entry/run.js'],
  // One level below the package root, as dist/version.js is: it reads ../package.json from where it runs.
  outfile: out,
  write: false,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  // Every package but commander (see above) stays a require() of node_modules; a package's subpaths follow it.
  external: Object.keys(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).dependencies).filter((p) => p !== 'commander'),
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  // CommonJS has no import.meta: the modules that resolve files and packages from their own location
  // (createRequire, ../package.json) get the bundle's.
  define: { 'import.meta.url': 'bundleUrl' },
  banner: {
    js: [
      'const bundleUrl = require("node:url").pathToFileURL(__filename).href;',
      // Given by bin/load-cli.cjs when it runs the bundle itself; required another way, the bundle imports alone.
      'const importPackage = typeof chatctlImportPackage === "function" ? chatctlImportPackage : (specifier) => import(specifier);',
    ].join('\n'),
  },
  logLevel: 'warning',
});
const [file] = result.outputFiles;
let imports = 0;
const text = file.text.replace(/\bimport\(("[^"./][^"]*")\)/g, (_, specifier) => {
  imports++;
  return `importPackage(${specifier})`;
});
// Every import() of the modules must be of a package, and so go through importPackage (the banner's is the one left).
const left = text.match(/\bimport\(/g)?.length ?? 0;
if (imports === 0 || left !== 1) throw new Error(`bundle: ${imports} package imports rewritten, ${left} import() left (expected 1, the banner's)`);
// esbuild escapes non-ASCII characters in strings, not in regular expressions: one there would be misread as
// Latin-1. In a bundled package's code (commander's, after an upgrade), the way out is to keep it external.
const outside = /[^\x00-\x7f]/.exec(text);
if (outside) throw new Error(`bundle: ${JSON.stringify(outside[0])} is not ASCII, in ${JSON.stringify(text.slice(Math.max(0, outside.index - 60), outside.index + 20))}; write it as \\u${outside[0].charCodeAt(0).toString(16).padStart(4, '0')}`);
writeFileSync(new URL(`../${out}`, import.meta.url), text);
