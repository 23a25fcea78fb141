#!/usr/bin/env node
// `npm start`, `npm run migrate`, `npm run simulator`, …: loads `.env` from the current directory when there
// is one — a variable already set in the environment wins, as under `make run` — then runs the entry point
// given as the first argument (`node scripts/with-dotenv.js dist/main/all.js`). With START_SIMULATOR=true,
// the settings a local run derives from the ports are filled in as `make run` does.
const fs = require('node:fs');
const path = require('node:path');
const { applyLocalDefaults } = require('./lib/local-defaults');

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/with-dotenv.js <entry.js> [args…]');
  process.exit(2);
}
if (fs.existsSync('.env')) process.loadEnvFile('.env');
// With the simulator, the ports derive the URLs between the processes (scripts/lib/local-defaults.js).
applyLocalDefaults(process.env);
process.argv = [process.argv[0], path.resolve(entry), ...rest];
require(path.resolve(entry));
