import { request } from 'undici';
import type { Logger } from '../logger';
import { describeRequestError, interpretAnswer, type WechatAnswer } from './http-answer';
import { callWithToken } from './token-call';
import type { TokenStore } from './tokens';

/** One field of a template, as its content names it: `课程名称：{{thing1.DATA}}` is `thing1`, labelled 课程名称. */
export interface TemplateField {
  readonly key: string;
  readonly label: string;
}

/** One template of an account's library, as WeChat lists it (reference/wechat.md §6.1), with its fields. */
export interface LibraryTemplate {
  readonly templateId: string;
  readonly title: string;
  readonly content: string;
  readonly fields: readonly TemplateField[];
}

/** What is known of an account's template library: its templates, or why they could not be listed. */
export type TemplateLibraryAnswer =
  | { readonly ok: true; readonly templates: readonly LibraryTemplate[]; readonly fetchedAt: Date }
  | { readonly ok: false; readonly reason: string };

/** The template libraries of the accounts, fetched from WeChat and cached per process. */
export interface TemplateLibrary {
  /**
   * The account's library, from the cache while it is younger than the TTL. `expect` names template ids the
   * caller is about to look up: one missing from a cached list older than the refetch floor fetches the
   * list again (a template added in WeChat's console a minute ago is found); so does `refresh` (the admin
   * page's template picker, opened after adding one). Never rejects.
   */
  templates(appId: string, expect?: readonly string[], refresh?: boolean): Promise<TemplateLibraryAnswer>;
}

/** Options of `createTemplateLibrary`. */
export interface TemplateLibraryOptions {
  /** WeChat API base URL, without trailing slash. */
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly tokens: TokenStore;
  /** A cached list is used this long, in ms. */
  readonly ttlMs: number;
  readonly logger: Logger;
  /** Epoch ms; tests move it. */
  readonly now?: () => number;
}

const LIST_PATH = '/cgi-bin/template/get_all_private_template';
/** A list younger than this is not fetched again for an id it lacks (a typo must not hammer WeChat). */
const REFETCH_FLOOR_MS = 30_000;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\.DATA\s*\}\}/g;

/**
 * The fields a template's content names, in order, each once: `{{key.DATA}}`, labelled by the text before it
 * on its line (`开课时间：{{time2.DATA}}` → 开课时间; the old `{{first.DATA}}` alone on a line has none).
 */
export function templateFields(content: string): TemplateField[] {
  const fields = new Map<string, string>();
  for (const line of content.split(/\r?\n/)) {
    let from = 0;
    for (const m of line.matchAll(PLACEHOLDER)) {
      const label = line
        .slice(from, m.index)
        .replace(/[:：\s]+$/u, '')
        .trim();
      if (!fields.has(m[1])) fields.set(m[1], label);
      from = m.index + m[0].length;
    }
  }
  return [...fields].map(([key, label]) => ({ key, label }));
}

function parseList(answer: WechatAnswer): readonly LibraryTemplate[] | string {
  const list = answer.json?.template_list;
  if (answer.errcode !== 0 || !Array.isArray(list)) {
    return answer.errcode === null ? answer.errmsg : `errcode ${answer.errcode} ${answer.errmsg}`.trim();
  }
  return list
    .filter((t): t is Record<string, unknown> => typeof t === 'object' && t !== null)
    .map((t) => ({
      templateId: str(t.template_id),
      title: str(t.title),
      content: str(t.content),
      fields: templateFields(str(t.content)),
    }));
}

/**
 * Creates the per-process cache of template libraries. Memory, not a table: a list is small, a stale one
 * costs only a warning (never a refusal), and each api process fetching it once per TTL is far inside
 * WeChat's quota; concurrent callers for one account share one fetch. A token WeChat rejects is expired
 * and the list asked for once more, as the send client does.
 */
export function createTemplateLibrary(opts: TemplateLibraryOptions): TemplateLibrary {
  const { tokens, logger } = opts;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { answer: TemplateLibraryAnswer & { ok: true }; at: number }>();
  const inFlight = new Map<string, Promise<TemplateLibraryAnswer>>();

  async function get(token: string): Promise<WechatAnswer> {
    try {
      const res = await request(`${opts.baseUrl}${LIST_PATH}?access_token=${encodeURIComponent(token)}`, {
        method: 'GET',
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
      });
      // A list answer carries no errcode: treat one without as ok, an errcode as WeChat's refusal.
      return interpretAnswer(res.statusCode, await res.body.text(), true);
    } catch (err) {
      return { errcode: null, errmsg: describeRequestError(err) };
    }
  }

  async function fetchList(appId: string): Promise<TemplateLibraryAnswer> {
    try {
      const list = parseList(await callWithToken(tokens, appId, get));
      if (typeof list === 'string') {
        logger.warn({ appId, reason: list }, 'template list not fetched');
        return { ok: false, reason: list };
      }
      const fetched = { ok: true as const, templates: list, fetchedAt: new Date(now()) };
      cache.set(appId, { answer: fetched, at: now() });
      return fetched;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      logger.warn({ appId, reason }, 'template list not fetched: no access token');
      return { ok: false, reason };
    }
  }

  function refetch(appId: string): Promise<TemplateLibraryAnswer> {
    const running = inFlight.get(appId);
    if (running) return running;
    const fetching = fetchList(appId).finally(() => inFlight.delete(appId));
    inFlight.set(appId, fetching);
    return fetching;
  }

  return {
    templates(appId, expect = [], refresh = false) {
      const cached = cache.get(appId);
      if (cached === undefined || now() - cached.at >= opts.ttlMs) return refetch(appId);
      const ids = new Set(cached.answer.templates.map((t) => t.templateId));
      const missing = refresh || expect.some((id) => !ids.has(id));
      if (missing && now() - cached.at >= REFETCH_FLOOR_MS) return refetch(appId);
      return Promise.resolve(cached.answer);
    },
  };
}
