import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { SendResult, WechatClient } from './client';
import { classifyErrcode, classifySend, type ErrcodeVerdict } from './errcodes';
import type { CustomMessage, NoticeMessage, TemplateMessage } from './message-schema';
import { loggableError } from '../loggable-error';

/** WeChat's verdict on a send; `resumeAt` says until when `stop_account` pauses (default: quota reset). */
export type SendVerdict = ErrcodeVerdict & { readonly resumeAt?: Date };

/** One send as the worker sees it: what came back, when, and the verdict on it. */
export interface JudgedSend {
  readonly result: SendResult;
  readonly at: Date;
  readonly verdict: SendVerdict;
}

/** The WeChat side as the worker needs it: every send resolves with a verdict, none rejects. */
export interface Sender {
  sendCustom(appId: string, openid: string, message: CustomMessage): Promise<JudgedSend>;
  sendTemplate(
    appId: string,
    openid: string,
    message: TemplateMessage,
    clientMsgId: string,
  ): Promise<JudgedSend>;
  sendNotice(appId: string, openid: string, message: NoticeMessage): Promise<JudgedSend>;
}

/** How long an account whose credentials WeChat refuses is paused before trying again. */
const CONFIG_ERROR_PAUSE_MS = 5 * 60 * 1000;

/**
 * The verdict on a send that never reached WeChat: the client rejects only when no access token could be
 * had. WeChat's answers, and answers lost on the way, are judged by `classifySend`.
 */
export function classifySendFailure(err: unknown, at: Date): SendVerdict {
  // A wrong AppSecret, a missing IP whitelist entry, an account not configured (an AppError that is not
  // retryable): every message of the account would fail the same way. Park them without spending
  // attempts until an operator fixes the configuration.
  if (err instanceof AppError && !err.retryable) {
    return {
      action: 'stop_account',
      reason: err.code,
      resumeAt: new Date(at.getTime() + CONFIG_ERROR_PAUSE_MS),
    };
  }
  // The token endpoint unreachable or busy, the token table unavailable: like a send WeChat did not answer.
  return classifyErrcode(null);
}

/** Wraps the WeChat client so that each send comes back judged: WeChat errors stop at this boundary. */
export function createJudgedSender(
  client: Pick<WechatClient, 'sendCustom' | 'sendTemplate' | 'sendNotice'>,
  logger: Logger,
): Sender {
  async function judge(appId: string, sending: () => Promise<SendResult>): Promise<JudgedSend> {
    try {
      const result = await sending();
      return { result, at: new Date(), verdict: classifySend(result) };
    } catch (err) {
      const at = new Date();
      const verdict = classifySendFailure(err, at);
      if (verdict.action === 'stop_account') {
        logger.error({ appId, err: loggableError(err) }, 'account misconfigured; pausing it');
      }
      return { result: { errcode: null, errmsg: (err as Error).message, durationMs: 0 }, at, verdict };
    }
  }

  return {
    sendCustom: (appId, openid, message) => judge(appId, () => client.sendCustom(appId, openid, message)),
    sendTemplate: (appId, openid, message, clientMsgId) =>
      judge(appId, () => client.sendTemplate(appId, openid, message, clientMsgId)),
    sendNotice: (appId, openid, message) => judge(appId, () => client.sendNotice(appId, openid, message)),
  };
}
