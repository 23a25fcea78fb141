import { WECHAT_ERRORS, type WechatError } from './wechat-errors';

/**
 * WeChat's checks on send bodies, written by hand and independent of the service's zod schema: the
 * simulator must catch what the service gets wrong, so it must not share its idea of a valid message.
 * Like WeChat it ignores fields it does not know.
 */

/** An accepted custom/send body: who it goes to and what kind of message it is. */
export interface AcceptedCustom {
  readonly errcode: 0;
  readonly openid: string;
  readonly msgtype: string;
}

/** An accepted template/send body. */
export interface AcceptedTemplate {
  readonly errcode: 0;
  readonly openid: string;
  readonly clientMsgId: string | undefined;
  readonly templateId: string;
  readonly data: Readonly<Record<string, { value: string }>>;
}

type Json = Record<string, unknown>;
type Rule = (payload: Json) => WechatError | null;

const FORMAT = WECHAT_ERRORS.dataFormatError;
const TEXT_MAX_BYTES = 2048;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isFilled = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** A rule that needs these fields as non-empty strings and allows these others as strings. */
function fields(required: readonly string[], optional: readonly string[] = []): Rule {
  return (p) =>
    required.every((k) => isFilled(p[k])) &&
    optional.every((k) => p[k] === undefined || typeof p[k] === 'string')
      ? null
      : FORMAT;
}

function textRule(p: Json): WechatError | null {
  if (typeof p.content !== 'string') return FORMAT;
  if (p.content === '') return WECHAT_ERRORS.emptyContent;
  return Buffer.byteLength(p.content, 'utf8') > TEXT_MAX_BYTES ? WECHAT_ERRORS.contentTooLong : null;
}

const articleRule = fields(['title', 'url'], ['description', 'picurl']);

function newsRule(p: Json): WechatError | null {
  if (!Array.isArray(p.articles) || p.articles.length === 0) return FORMAT;
  if (p.articles.length > 1) return WECHAT_ERRORS.tooManyArticles;
  return isObject(p.articles[0]) ? articleRule(p.articles[0]) : FORMAT;
}

const menuItemRule = fields(['id', 'content']);
const menuFrameRule = fields([], ['head_content', 'tail_content']);

function msgmenuRule(p: Json): WechatError | null {
  if (!Array.isArray(p.list) || p.list.length === 0) return FORMAT;
  if (!p.list.every((item) => isObject(item) && menuItemRule(item) === null)) return FORMAT;
  return menuFrameRule(p);
}

/** reference/wechat.md §1.1: each msgtype and the fields its payload object needs. */
const CUSTOM_RULES: Readonly<Record<string, Rule>> = {
  text: textRule,
  image: fields(['media_id']),
  voice: fields(['media_id']),
  video: fields(['media_id', 'thumb_media_id'], ['title', 'description']),
  music: fields(['musicurl', 'hqmusicurl', 'thumb_media_id'], ['title', 'description']),
  news: newsRule,
  mpnews: fields(['media_id']),
  mpnewsarticle: fields(['article_id']),
  msgmenu: msgmenuRule,
  wxcard: fields(['card_id']),
  miniprogrampage: fields(['appid', 'pagepath', 'thumb_media_id'], ['title']),
};

function parseObject(raw: string): Json | null {
  try {
    const body: unknown = JSON.parse(raw);
    return isObject(body) ? body : null;
  } catch {
    return null;
  }
}

/** Checks a `message/custom/send` body as WeChat does: JSON, recipient, msgtype, its payload. */
export function checkCustomBody(raw: string): AcceptedCustom | WechatError {
  const body = parseObject(raw);
  if (body === null) return FORMAT;
  if (!isFilled(body.touser)) return WECHAT_ERRORS.invalidOpenid;
  const msgtype = body.msgtype;
  const rule =
    typeof msgtype === 'string' && Object.hasOwn(CUSTOM_RULES, msgtype) ? CUSTOM_RULES[msgtype] : null;
  if (rule === null || rule === undefined) return WECHAT_ERRORS.invalidMessageType;
  const payload = body[msgtype as string];
  if (!isObject(payload)) return FORMAT;
  const problem = rule(payload);
  if (problem !== null) return problem;
  if (
    body.customservice !== undefined &&
    !(isObject(body.customservice) && isFilled(body.customservice.kf_account))
  ) {
    return FORMAT;
  }
  return { errcode: 0, openid: body.touser, msgtype: msgtype as string };
}

const argumentInvalid = (what: string): WechatError => ({
  errcode: WECHAT_ERRORS.argumentInvalid.errcode,
  errmsg: `${WECHAT_ERRORS.argumentInvalid.errmsg} ${what} invalid`,
});

/** A subscription notice that passed the body rules. */
export interface AcceptedNotice {
  readonly errcode: 0;
  readonly openid: string;
  readonly templateId: string;
}

/** A notice's `thing` keyword holds at most this many characters (reference/wechat-platform.md §2.2). */
const NOTICE_THING_MAX_CHARS = 20;

/**
 * What template messages and notices share: touser, template_id, `data` of `{ value }` entries (a `thing`
 * one at most `thingMax` characters, when given), an optional `link` field and miniprogram. The first
 * problem, or null.
 */
function templatedProblem(body: Json, link: 'url' | 'page', thingMax?: number): WechatError | null {
  if (!isFilled(body.touser)) return WECHAT_ERRORS.invalidOpenid;
  if (!isFilled(body.template_id) || !isObject(body.data)) return WECHAT_ERRORS.argumentInvalid;
  for (const [key, entry] of Object.entries(body.data)) {
    if (!isObject(entry) || typeof entry.value !== 'string') return argumentInvalid(`data.${key}.value`);
    if (thingMax !== undefined && key.startsWith('thing') && [...entry.value].length > thingMax) {
      return argumentInvalid(`data.${key}.value`);
    }
  }
  if (body[link] !== undefined && typeof body[link] !== 'string') return argumentInvalid(link);
  const mp = body.miniprogram;
  if (mp !== undefined && !(isObject(mp) && isFilled(mp.appid) && fields([], ['pagepath'])(mp) === null)) {
    return argumentInvalid('miniprogram');
  }
  return null;
}

/**
 * The body rules of `message/subscribe/bizsend` (reference/wechat-platform.md §2.2): touser, template_id,
 * `data` of `{ value }` entries (`thing` ones at most 20 characters), optional page and miniprogram.
 */
export function checkNoticeBody(raw: string): AcceptedNotice | WechatError {
  const body = parseObject(raw);
  if (body === null) return FORMAT;
  const problem = templatedProblem(body, 'page', NOTICE_THING_MAX_CHARS);
  if (problem) return problem;
  return { errcode: 0, openid: body.touser as string, templateId: body.template_id as string };
}

/**
 * Checks a `message/template/send` body (reference/wechat.md §6.1); a missing or empty template_id is
 * WeChat's 40037. Whether the account holds the template is the template registry's check (templates.ts).
 */
export function checkTemplateBody(raw: string): AcceptedTemplate | WechatError {
  const body = parseObject(raw);
  if (body === null) return FORMAT;
  if (isFilled(body.touser) && !isFilled(body.template_id)) return WECHAT_ERRORS.invalidTemplateId;
  const problem = templatedProblem(body, 'url');
  if (problem) return problem;
  if (body.client_msg_id !== undefined && !isFilled(body.client_msg_id))
    return argumentInvalid('client_msg_id');
  return {
    errcode: 0,
    openid: body.touser as string,
    clientMsgId: body.client_msg_id,
    templateId: body.template_id as string,
    data: body.data as Record<string, { value: string }>,
  };
}
