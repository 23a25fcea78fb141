import QRCode from 'qrcode';
import { request } from 'undici';
import { ConflictError } from '../errors';
import { describeRequestError, interpretAnswer, type WechatAnswer } from './http-answer';
import { acceptedJson, callWithToken } from './token-call';
import type { TokenStore } from './tokens';

/** What a marketer asks for: a code whose scan or follow carries `scene`, permanent or for `expireSeconds`. */
export interface QrCodeRequest {
  readonly scene: string;
  readonly permanent: boolean;
  readonly expireSeconds: number;
}

/** A parametric QR code (带参数二维码) as WeChat made it, with its image. */
export interface MadeQrCode {
  readonly ticket: string;
  /** What the code encodes (`http://weixin.qq.com/q/…`): a follower's scan opens the account with the scene. */
  readonly url: string;
  readonly expiresAt: Date | null;
  /** The code as a PNG, `data:image/png;base64,…`, drawn here from `url` (no call to WeChat's image host). */
  readonly image: string;
}

export interface QrCodeMaker {
  make(appId: string, request: QrCodeRequest): Promise<MadeQrCode>;
}

const CREATE_PATH = '/cgi-bin/qrcode/create';

/**
 * Makes parametric QR codes with `qrcode/create` (string scenes: `QR_STR_SCENE` for a temporary code,
 * `QR_LIMIT_STR_SCENE` for a permanent one), through `callWithToken` (one retry on a rejected token), as
 * the template library does. WeChat's refusal is a 409 `wechat_refused` with its errcode; no answer a 503
 * `wechat_unavailable`. The image is drawn from the code's url with the `qrcode` package: WeChat's
 * `showqrcode` would be one more host to reach, and the url is what the code holds.
 */
export function createQrCodeMaker(opts: {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly tokens: TokenStore;
  readonly now?: () => number;
}): QrCodeMaker {
  const now = opts.now ?? Date.now;

  async function post(token: string, body: unknown): Promise<WechatAnswer> {
    try {
      const res = await request(`${opts.baseUrl}${CREATE_PATH}?access_token=${encodeURIComponent(token)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
      });
      return interpretAnswer(res.statusCode, await res.body.text(), true);
    } catch (err) {
      return { errcode: null, errmsg: describeRequestError(err) };
    }
  }

  return {
    async make(appId, req) {
      const body = {
        ...(req.permanent ? {} : { expire_seconds: req.expireSeconds }),
        action_name: req.permanent ? 'QR_LIMIT_STR_SCENE' : 'QR_STR_SCENE',
        action_info: { scene: { scene_str: req.scene } },
      };
      const answer = await callWithToken(opts.tokens, appId, (token) => post(token, body));
      const { ticket, url, expire_seconds: expireSeconds } = acceptedJson(answer, 'the QR code');
      if (typeof ticket !== 'string' || typeof url !== 'string') {
        throw new ConflictError('wechat_refused', 'WeChat answered a QR code without ticket or url', {
          errcode: 0,
        });
      }
      return {
        ticket,
        url,
        expiresAt: typeof expireSeconds === 'number' ? new Date(now() + expireSeconds * 1000) : null,
        image: await QRCode.toDataURL(url, { errorCorrectionLevel: 'M', margin: 2, width: 430 }),
      };
    },
  };
}
