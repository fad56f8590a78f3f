#!/usr/bin/env node
'use strict';
// The installed entry point: runs the compiled CLI (dist/chatctl.cjs, one file built by npm ci: see
// scripts/bundle.mjs; bin/load-cli.cjs loads it) and sets the exit code.
//
// CommonJS on purpose: Node starts a CommonJS entry about 6 ms faster than an ES module one (no module loader
// to set up), which is most of what `chatctl --version` costs over `node -e 0`; scripts call it often, so it is
// answered here, from the package manifest, before the CLI or the ES module loader is touched.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  // The CLI maps every error of a command to its exit code; what reaches the catch is the CLI failing to load
  // (dist/ not built), exit 1 as for any failure.
  new Promise((resolve) => resolve(require('./load-cli.cjs').loadCli()))
    .then(async ({ cli, done }) => {
      process.exitCode = await cli.run(argv);
      done();
    })
    .catch((e) => {
      process.stderr.write(`chatctl: could not start: ${e instanceof Error ? e.message : String(e)}\n(build it with npm ci, or npm run build)\n`);
      process.exitCode = 1;
    });
}
