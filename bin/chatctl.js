#!/usr/bin/env node
// The installed entry point: runs the compiled CLI and sets the exit code. Build first (npm ci does).
import module from 'node:module';

// Where the runtime has it (Node 22.1+), keep the compiled code of chatctl's modules between runs, so start-up
// skips compiling them; Node 20 has no such cache and runs as before. Enabled before the CLI is imported.
module.enableCompileCache?.();
const { run } = await import('../dist/cli/run.js');

process.exitCode = await run(process.argv.slice(2));
