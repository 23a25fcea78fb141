#!/usr/bin/env node
// `npm start`, `npm run migrate`, `npm run simulator`, …: loads `.env` from the current directory when there
// is one — a variable already set in the environment wins, as under `make run` — then runs the entry point
// given as the first argument (`node scripts/with-dotenv.js dist/main/all.js`).
const fs = require('node:fs');
const path = require('node:path');

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/with-dotenv.js <entry.js> [args…]');
  process.exit(2);
}
if (fs.existsSync('.env')) process.loadEnvFile('.env');
process.argv = [process.argv[0], path.resolve(entry), ...rest];
require(path.resolve(entry));
