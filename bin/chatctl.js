#!/usr/bin/env node
// The installed entry point: runs the compiled CLI and sets the exit code. Build first (npm ci does).
import { run } from '../dist/cli/run.js';

process.exitCode = await run(process.argv.slice(2));
