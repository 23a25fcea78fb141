#!/usr/bin/env node
// Prints jest's own counts from its --json output as one line: `tests: N passed, N failed, N skipped`.
const fs = require('node:fs');
const file = process.argv[2];
try {
  const r = JSON.parse(fs.readFileSync(file, 'utf8'));
  const failed = r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
  console.log(`tests: ${r.numPassedTests} passed, ${failed} failed, ${r.numPendingTests} skipped`);
} catch (err) {
  console.log(`tests: 0 passed, 1 failed (no jest results at ${file}: ${err.message})`);
}
