#!/usr/bin/env node
// `npm run docs:config`: writes docs/configuration.md's tables (between its config markers) and
// .env.example from the settings' one declaration (src/config/settings-*.ts, built into dist/), formatted
// as `make lint` wants. test/unit/docs/configuration.test.ts fails when the committed files differ.
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const prettier = require('prettier');
const { renderEnvExample, withConfigTables } = require('../dist/config/reference.js');

const root = path.resolve(__dirname, '..');
const doc = path.join(root, 'docs/configuration.md');

async function main() {
  const options = { ...(await prettier.resolveConfig(doc)), filepath: doc };
  writeFileSync(doc, await prettier.format(withConfigTables(readFileSync(doc, 'utf8')), options));
  writeFileSync(path.join(root, '.env.example'), renderEnvExample());
  process.stdout.write('Written: docs/configuration.md (its tables), .env.example\n');
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
