import type { ServerResponse } from 'node:http';

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/**
 * The authorization page as a person sees it: where WeChat shows a QR code for the account's admin to
 * scan, a form asking which account consents and which permission sets it grants. Submitting it opens
 * the same page again with `sim_appid` and `sim_func`, the link's own parameters kept;
 * `defaultFuncIds` fills the permission sets.
 */
export function sendConsentPage(
  res: ServerResponse,
  query: URLSearchParams,
  defaultFuncIds: readonly number[],
): void {
  const kept = [...query]
    .filter(([name]) => !name.startsWith('sim_'))
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize the platform (WeChat simulator)</title></head>
<body>
<h1>Authorize ${escapeHtml(query.get('component_appid') ?? '')}</h1>
<p>WeChat would show a QR code here for the official account's admin to scan. The simulator asks instead.</p>
<form method="get" action="componentloginpage">
${kept.join('\n')}
<p><label>Official account app id <input name="sim_appid" required></label></p>
<p><label>Permission sets granted <input name="sim_func" value="${defaultFuncIds.join(',')}"></label></p>
<p><button type="submit">Authorize</button></p>
</form>
</body></html>`;
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
  });
  res.end(html);
}
