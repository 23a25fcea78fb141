import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger';
import type { Faults } from './faults';
import type { Followers } from './followers';
import { readBody, sendJson, type Pauses } from './http-io';
import type { NoticeSubscriptions } from './notice-subscriptions';
import { checkCustomBody, checkNoticeBody, checkTemplateBody } from './payload-rules';
import type { MessageStore, SimChannel } from './store';
import type { ShownTemplate, TemplateRegistry } from './templates';
import type { TokenRegistry } from './tokens';
import type { TemplateReports, TemplateReportStatus } from './template-reports';
import { WECHAT_ERRORS, wechatError, type WechatError } from './wechat-errors';

/** Counters of the send endpoints, cumulative for the life of the simulator. */
export interface SendStats {
  /** Sends accepted and recorded. */
  received: number;
  byChannel: Record<SimChannel, number>;
  byMsgtype: Record<string, number>;
  /** Sends answered with a WeChat error by the rules (not by fault injection). */
  rejected: number;
  rejectedByErrcode: Record<string, number>;
  /** Sends answered with an injected errcode or left hanging. */
  errorsInjected: number;
  /** Template sends answered ok without recording, as repeats of a recent client_msg_id. */
  deduplicated: number;
}

/** Creates zeroed counters. */
export function createSendStats(): SendStats {
  return {
    received: 0,
    byChannel: { custom: 0, template: 0, notice: 0 },
    byMsgtype: {},
    rejected: 0,
    rejectedByErrcode: {},
    errorsInjected: 0,
    deduplicated: 0,
  };
}

interface SendDeps {
  readonly tokens: TokenRegistry;
  readonly faults: Faults;
  readonly store: MessageStore;
  readonly stats: SendStats;
  readonly pauses: Pauses;
  readonly followers: Followers;
  readonly notices: NoticeSubscriptions;
  /** Each account's template library: template sends are checked against it. */
  readonly templates: TemplateRegistry;
  /** Reports a notice's delivery to the webhook (`subscribe_msg_sent_event`), after the send is answered. */
  readonly reportNoticeSent: (
    appId: string,
    openid: string,
    templateId: string,
    msgid: number,
  ) => Promise<void>;
  /** Called with each accepted send's text (a text message's content, a template's shown fields): cues. */
  readonly accepted: (appId: string, openid: string, text: string) => void;
  /** Which delivery report an accepted template send gets (`POST /__sim/template-reports`). */
  readonly templateReports: TemplateReports;
  /** Pushes a template send's `TEMPLATESENDJOBFINISH` to the webhook, after the send is answered. */
  readonly reportTemplateSent: (
    appId: string,
    openid: string,
    msgid: number,
    status: TemplateReportStatus,
  ) => Promise<void>;
  /** False for an account without the publish APIs (personal / unverified since 2025-07). */
  readonly hasPublishApis: (appId: string) => boolean;
  readonly logger: Logger;
  readonly now: () => number;
}

// Template msgids look like WeChat's (nine or more digits) and never collide with seqs.
const MSGID_BASE = 200_000_000;

/** Answers one send request on the given channel. */
export type SendHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
  channel: SimChannel,
) => Promise<void>;

/**
 * Handles `message/custom/send`, `message/template/send` and `message/subscribe/bizsend`. Order: faults
 * (the platform being unwell comes before anything else), then the token, then the body (for a template,
 * against the account's template library too), then the
 * follower (subscription, the contact window for custom sends, an acceptance of the template for
 * notices); only a send that passes everything is recorded. A notice's delivery is then pushed.
 */
export function createSendHandler(deps: SendDeps): SendHandler {
  const { tokens, faults, store, stats, pauses, logger, now } = deps;
  let msgidCounter = 0;

  function reject(res: ServerResponse, error: WechatError, channel: SimChannel): void {
    stats.rejected += 1;
    stats.rejectedByErrcode[error.errcode] = (stats.rejectedByErrcode[error.errcode] ?? 0) + 1;
    logger.debug({ channel, errcode: error.errcode }, 'send rejected');
    sendJson(res, 200, error);
  }

  function accept(
    appId: string,
    raw: string,
    channel: SimChannel,
    openid: string,
    msgtype: string,
    shown?: ShownTemplate,
  ): void {
    store.record({ appId, openid, channel, msgtype, raw, receivedAt: now(), ...(shown ? { shown } : {}) });
    deps.accepted(appId, openid, acceptedText(raw, msgtype, shown));
    stats.received += 1;
    stats.byChannel[channel] += 1;
    stats.byMsgtype[msgtype] = (stats.byMsgtype[msgtype] ?? 0) + 1;
  }

  function handleTemplate(res: ServerResponse, appId: string, raw: string): void {
    const verdict = checkTemplateBody(raw);
    if ('errmsg' in verdict) return reject(res, verdict, 'template');
    const { openid, clientMsgId, templateId, data } = verdict;
    const refused = deps.templates.check(appId, templateId, data);
    if (refused !== null) return reject(res, refused, 'template');
    const unfollowed = deps.followers.admitTemplate(appId, openid);
    if (unfollowed !== null) return reject(res, unfollowed, 'template');
    const at = now();
    if (clientMsgId !== undefined) {
      const earlier = store.findDuplicate(appId, openid, clientMsgId, at);
      if (earlier !== undefined) {
        stats.deduplicated += 1;
        return sendJson(res, 200, { errcode: 0, errmsg: 'ok', msgid: earlier });
      }
    }
    const msgid = MSGID_BASE + ++msgidCounter;
    if (clientMsgId !== undefined) store.rememberClientMsgId(appId, openid, clientMsgId, msgid, at);
    accept(appId, raw, 'template', openid, 'template', deps.templates.shown(appId, templateId, data));
    sendJson(res, 200, { errcode: 0, errmsg: 'ok', msgid });
    const report = deps.templateReports.next();
    if (report === null) return;
    deps.reportTemplateSent(appId, openid, msgid, report).catch((err: Error) => {
      logger.warn({ appId, err: err.message }, 'TEMPLATESENDJOBFINISH push failed');
    });
  }

  function handleNotice(res: ServerResponse, appId: string, raw: string): void {
    const verdict = checkNoticeBody(raw);
    if ('errmsg' in verdict) return reject(res, verdict, 'notice');
    const { openid, templateId } = verdict;
    // Last check: admitting consumes the follower's acceptance of the template.
    const refused = deps.notices.admit(appId, openid, templateId);
    if (refused !== null) return reject(res, refused, 'notice');
    const msgid = MSGID_BASE + ++msgidCounter;
    accept(appId, raw, 'notice', openid, 'notice');
    sendJson(res, 200, { errcode: 0, errmsg: 'ok', msgid });
    deps.reportNoticeSent(appId, openid, templateId, msgid).catch((err: Error) => {
      logger.warn({ appId, err: err.message }, 'subscribe_msg_sent_event push failed');
    });
  }

  function handleCustom(res: ServerResponse, appId: string, raw: string): void {
    const verdict = checkCustomBody(raw);
    if ('errmsg' in verdict) return reject(res, verdict, 'custom');
    // An article message needs an article_id from the publish APIs, which such an account lost.
    if (verdict.msgtype === 'mpnewsarticle' && !deps.hasPublishApis(appId))
      return reject(res, WECHAT_ERRORS.apiUnauthorized, 'custom');
    // Last check: admitting counts the send against the window, so nothing may refuse it afterwards.
    const closed = deps.followers.admitCustom(appId, verdict.openid, now());
    if (closed !== null) return reject(res, closed, 'custom');
    accept(appId, raw, 'custom', verdict.openid, verdict.msgtype);
    sendJson(res, 200, { errcode: 0, errmsg: 'ok' });
  }

  return async function handleSend(req, res, query, channel) {
    const raw = await readBody(req);
    if (raw === null) return sendJson(res, 413, WECHAT_ERRORS.dataFormatError);
    const fault = faults.next(channel);
    if (fault.kind === 'hang') {
      stats.errorsInjected += 1;
      await pauses.wait(fault.hangMs, res);
      // No answer at all: the client sees a timeout, or a dropped connection if it waited longer.
      res.destroy();
      return;
    }
    await pauses.wait(fault.latencyMs, res);
    if (fault.kind === 'error') {
      stats.errorsInjected += 1;
      return sendJson(res, 200, wechatError(fault.errcode));
    }
    const owner = tokens.check(query.get('access_token'));
    if ('errcode' in owner) return reject(res, owner, channel);
    if (channel === 'custom') handleCustom(res, owner.appId, raw);
    else if (channel === 'notice') handleNotice(res, owner.appId, raw);
    else handleTemplate(res, owner.appId, raw);
  };
}

/** What a follower reads in a send, for cues: a text message's content, a template's title and fields. */
function acceptedText(raw: string, msgtype: string, shown: ShownTemplate | undefined): string {
  if (shown) return [shown.title, ...shown.fields.map((f) => f.value)].join('\n');
  if (msgtype !== 'text') return '';
  try {
    const content = (JSON.parse(raw) as { text?: { content?: unknown } }).text?.content;
    return typeof content === 'string' ? content : '';
  } catch {
    return '';
  }
}
