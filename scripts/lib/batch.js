'use strict';

/** POSTs `lines` (JSON strings) as one NDJSON body to `/v1/messages/batch`; resolves to the answer's lines, parsed. */
async function postBatch(api, adminToken, lines) {
  const res = await fetch(`${api}/v1/messages/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/x-ndjson' },
    body: lines.join('\n'),
  });
  return (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

module.exports = { postBatch };
