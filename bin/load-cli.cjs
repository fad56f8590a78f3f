'use strict';
// Loads the CLI bundle (dist/chatctl.cjs, see scripts/bundle.mjs) and keeps V8's compiled code of it between
// runs: compiling its 0.9 MB was the largest single cost left of a command's start-up (about 20 ms here).
// Node 22.1+ keeps compiled code itself (module.enableCompileCache). On Node 20 the bundle is compiled with
// vm.Script, and the code V8 made (the functions the command ran included) is kept in the user's cache
// directory: $XDG_CACHE_HOME/chatctl, or ~/.cache/chatctl, 0700, its files 0600, so that only its owner can
// write what this process will run. V8 checks a cache against the source, its own version and its flags, and
// one it refuses is made again. NODE_DISABLE_COMPILE_CACHE=1 turns either off, as it does Node's own. A cache
// that cannot be read or written only means compiling as before.
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');

const bundle = path.join(__dirname, '..', 'dist', 'chatctl.cjs');

/** The packages that are ES modules only, imported from here (code run from V8's cache cannot on Node 20). */
const importPackage = (specifier) => import(specifier);

/** Where the compiled code of this very bundle is kept: named for its size and time, and V8's version. */
function cachePath() {
  const { size, mtimeMs } = fs.statSync(bundle);
  const dir = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'chatctl');
  return path.join(dir, `chatctl-${size}-${Math.trunc(mtimeMs)}-v8-${process.versions.v8}.cache`);
}

function readCache(file) {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Keeps `data` as `file`, whole or not at all, and drops what was kept for other builds of the bundle. */
function writeCache(file, data) {
  const dir = path.dirname(file);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const partial = `${file}.${process.pid}`;
    fs.writeFileSync(partial, data, { mode: 0o600 });
    fs.renameSync(partial, file);
    for (const name of fs.readdirSync(dir)) {
      if (/^chatctl-.*\.cache$/.test(name) && name !== path.basename(file)) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // An unwritable cache directory: the next run compiles again.
  }
}

/** The bundle's exports, and what to call once the command has run (it keeps the compiled code). */
function loadCli() {
  const disabled = Boolean(process.env.NODE_DISABLE_COMPILE_CACHE);
  if (disabled || typeof Module.enableCompileCache === 'function') {
    if (!disabled) Module.enableCompileCache();
    return { cli: require(bundle), done: () => {} };
  }
  const file = cachePath();
  const cachedData = readCache(file);
  // The build makes the bundle ASCII only (scripts/bundle.mjs): read as Latin-1, it needs no UTF-8 decoding.
  const source = `(function (exports, require, module, __filename, __dirname, chatctlImportPackage) {${fs.readFileSync(bundle, 'latin1')}\n})`;
  const script = new vm.Script(source, { filename: bundle, cachedData });
  const module = { exports: {}, id: bundle, filename: bundle, loaded: false };
  script.runInThisContext()(module.exports, Module.createRequire(bundle), module, bundle, path.dirname(bundle), importPackage);
  module.loaded = true;
  return {
    cli: module.exports,
    // Made after the command ran, so that the functions it compiled on the way are kept too.
    done: () => {
      if (cachedData === undefined || script.cachedDataRejected) writeCache(file, script.createCachedData());
    },
  };
}

module.exports = { loadCli };
