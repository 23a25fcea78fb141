#!/usr/bin/env node
// Where a process's CPU went: reads V8 .cpuprofile files (node --cpu-prof) and prints self time grouped
// by package (node_modules/<pkg>), Node's own internals, the service's own files, and V8's pseudo-frames
// (GC, idle, program), then the functions with the most self time.
//
//   node scripts/profile-summary.js <file.cpuprofile> [more…] [--top N]
//
// Several files are added up (e.g. both worker processes). Idle time is shown but left out of the shares.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 20;
if (args.length === 0) {
  console.error('usage: node scripts/profile-summary.js <file.cpuprofile> [more…] [--top N]');
  process.exit(2);
}

/** The group a frame's self time counts towards. */
function groupOf(frame) {
  const url = frame.url || '';
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = /\/dist(?:-bench)?\/(.+)$/.exec(url);
  return own ? `own:${path.dirname(own[1])}` : url;
}

const byGroup = new Map();
const byFunction = new Map();
let totalUs = 0;
let idleUs = 0;
for (const file of args) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const frame = nodes.get(id).callFrame;
    if (frame.functionName === '(idle)') {
      idleUs += us;
      return;
    }
    totalUs += us;
    const group = groupOf(frame);
    byGroup.set(group, (byGroup.get(group) ?? 0) + us);
    const where = frame.url ? `${path.basename(frame.url)}:${frame.lineNumber + 1}` : '';
    const name = `${frame.functionName || '(anonymous)'} ${where} [${group}]`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  });
}

const ms = (us) => (us / 1000).toFixed(0).padStart(8);
const share = (us) => `${((100 * us) / totalUs).toFixed(1).padStart(5)} %`;
console.log(`busy ${ms(totalUs)} ms, idle ${ms(idleUs)} ms, ${args.length} profile(s)\n`);
console.log('self time by group');
for (const [group, us] of [...byGroup].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${ms(us)} ms ${share(us)}  ${group}`);
}
console.log('\nself time by function');
for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${ms(us)} ms ${share(us)}  ${name}`);
}
