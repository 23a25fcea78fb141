#!/usr/bin/env node
// Prints jest's own counts from its --json output as one line: `tests: N passed, N failed, N skipped`.
// `make test` runs jest several times (test-artifacts/jest/*.json): the counts are summed over the files.
const fs = require('node:fs');
const files = process.argv.slice(2);
const total = { passed: 0, failed: 0, skipped: 0 };
const missing = [];
for (const file of files) {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    total.passed += r.numPassedTests;
    total.failed += r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
    total.skipped += r.numPendingTests;
  } catch (err) {
    missing.push(`${file}: ${err.message}`);
  }
}
if (files.length === 0) missing.push('no file named');
const note = missing.length > 0 ? ` (no jest results at ${missing.join('; ')})` : '';
console.log(
  `tests: ${total.passed} passed, ${total.failed + missing.length} failed, ${total.skipped} skipped${note}`,
);
