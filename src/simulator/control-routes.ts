import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Cues, parseCueSpec } from './cues';
import { parseFaultSpec, type Faults } from './faults';
import { readBody, sendBadRequest, sendJson } from './http-io';
import type { MessageFilter } from './store';
import { parseAccountRegistration } from './account-registration';
import type { SimulatorAccount } from './config';
import { parseTemplateReportSpec, type TemplateReports } from './template-reports';
import { parseTemplateRegistration, type SimTemplate } from './templates';
import type { SimQrCode } from './qrcode-routes';
import type { SimMedia } from './media-routes';

/** What the /__sim routes act on: the simulator's own accessors. */
export interface ControlTarget {
  messages(filter: MessageFilter): { messages: unknown[]; hasMore: boolean };
  resetMessages(): number;
  stats(): unknown;
  readonly faults: Faults;
  /** The `TEMPLATESENDJOBFINISH` reports of accepted template sends. */
  readonly templateReports: TemplateReports;
  /** Followers who answer sends on cue. */
  readonly cues: Cues;
  /** Null when the account is unknown. */
  invalidateTokens(appId: string): number | null;
  register(account: SimulatorAccount): void;
  registerTemplates(appId: string, templates: readonly SimTemplate[]): void;
  templates(appId: string): readonly SimTemplate[];
  /** The parametric QR codes made for the account (`qrcode/create`). */
  qrcodes(appId: string): readonly SimQrCode[];
  /** The permanent images uploaded for the account (`material/add_material`). */
  media(appId: string): readonly SimMedia[];
}

/** `GET /__sim/messages` answers at most this many unless `limit` says otherwise. */
const DEFAULT_LIMIT = 1000;
const MAX_LIMIT = 100_000;

function parseJsonBody(raw: string | null): { ok: true; value: unknown } | { ok: false } {
  if (raw === null) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: false };
  }
}

function parseFilter(query: URLSearchParams): MessageFilter | string {
  const since = query.get('since') ?? '0';
  const limit = query.get('limit') ?? String(DEFAULT_LIMIT);
  if (!/^\d+$/.test(since)) return 'since must be a non-negative integer (a seq)';
  if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT) {
    return `limit must be an integer from 1 to ${MAX_LIMIT}`;
  }
  return {
    appId: query.get('appId') ?? undefined,
    openid: query.get('openid') ?? undefined,
    since: Number(since),
    limit: Number(limit),
  };
}

/**
 * A setting's three routes: GET shows it as `{[key]: spec | null}`, POST replaces it with a valid spec
 * (400 naming the problems otherwise), DELETE clears it.
 */
async function handleSetting<T>(
  req: IncomingMessage,
  res: ServerResponse,
  key: string,
  what: string,
  parse: (input: unknown) => { spec: T } | { problems: string[] },
  setting: { set(spec: T): void; clear(): void; current(): T | null },
): Promise<void> {
  if (req.method === 'GET') return sendJson(res, 200, { [key]: setting.current() });
  if (req.method === 'DELETE') {
    setting.clear();
    return sendJson(res, 200, { [key]: null });
  }
  const body = parseJsonBody(await readBody(req));
  if (!body.ok) return sendBadRequest(res, 'body must be JSON');
  const parsed = parse(body.value);
  if ('problems' in parsed) return sendBadRequest(res, `invalid ${what}`, parsed.problems);
  setting.set(parsed.spec);
  return sendJson(res, 200, { [key]: parsed.spec });
}

/** The test and control routes under /__sim. Answers 400 JSON for bad input, 404 for unknown routes. */
export async function handleControl(
  target: ControlTarget,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
): Promise<void> {
  const route = `${req.method ?? ''} ${path}`;
  switch (route) {
    case 'GET /__sim/messages': {
      const filter = parseFilter(query);
      if (typeof filter === 'string') return sendBadRequest(res, filter);
      return sendJson(res, 200, target.messages(filter));
    }
    case 'DELETE /__sim/messages':
      return sendJson(res, 200, { cleared: target.resetMessages() });
    case 'GET /__sim/stats':
      return sendJson(res, 200, target.stats());
    case 'GET /__sim/faults':
    case 'POST /__sim/faults':
    case 'DELETE /__sim/faults':
      return handleSetting(req, res, 'faults', 'fault spec', parseFaultSpec, target.faults);
    case 'GET /__sim/template-reports':
    case 'POST /__sim/template-reports':
    case 'DELETE /__sim/template-reports':
      return handleSetting(
        req,
        res,
        'templateReports',
        'template report spec',
        parseTemplateReportSpec,
        target.templateReports,
      );
    case 'GET /__sim/cues':
    case 'POST /__sim/cues':
    case 'DELETE /__sim/cues':
      return handleSetting(req, res, 'cues', 'cue spec', parseCueSpec, target.cues);
    case 'POST /__sim/tokens/invalidate': {
      const body = parseJsonBody(await readBody(req));
      if (!body.ok) return sendBadRequest(res, 'body must be JSON');
      const appId = (body.value as { appId?: unknown } | null)?.appId;
      if (typeof appId !== 'string') return sendBadRequest(res, 'appId (string) is required');
      const invalidated = target.invalidateTokens(appId);
      if (invalidated === null) return sendBadRequest(res, `unknown appId ${appId}`);
      return sendJson(res, 200, { invalidated });
    }
    case 'POST /__sim/accounts': {
      const body = parseJsonBody(await readBody(req));
      if (!body.ok) return sendBadRequest(res, 'body must be JSON');
      const parsed = parseAccountRegistration(body.value);
      if ('problems' in parsed) return sendBadRequest(res, 'invalid account', parsed.problems);
      target.register(parsed.account);
      return sendJson(res, 200, { registered: parsed.account.appId });
    }
    case 'POST /__sim/templates': {
      const body = parseJsonBody(await readBody(req));
      if (!body.ok) return sendBadRequest(res, 'body must be JSON');
      const parsed = parseTemplateRegistration(body.value);
      if ('problems' in parsed) return sendBadRequest(res, 'invalid templates', parsed.problems);
      target.registerTemplates(parsed.appId, parsed.templates);
      return sendJson(res, 200, { appId: parsed.appId, templates: parsed.templates.length });
    }
    case 'GET /__sim/media': {
      const appId = query.get('appId');
      if (!appId) return sendBadRequest(res, 'appId is required');
      return sendJson(res, 200, { appId, media: target.media(appId) });
    }
    case 'GET /__sim/qrcodes': {
      const appId = query.get('appId');
      if (!appId) return sendBadRequest(res, 'appId is required');
      return sendJson(res, 200, { appId, qrcodes: target.qrcodes(appId) });
    }
    case 'GET /__sim/templates': {
      const appId = query.get('appId');
      if (!appId) return sendBadRequest(res, 'appId is required');
      return sendJson(res, 200, { appId, templates: target.templates(appId) });
    }
    default:
      return sendJson(res, 404, { error: { code: 'not_found', message: `no route ${route}` } });
  }
}
