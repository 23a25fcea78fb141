import { randomBytes } from 'node:crypto';
import type { TokenRegistry } from './tokens';
import { WECHAT_ERRORS, type WechatError } from './wechat-errors';

/** WeChat's parametric QR code API (带参数二维码): `POST …?access_token=` with a JSON body. */
export const QRCODE_CREATE_PATH = '/cgi-bin/qrcode/create';

/** WeChat's limits: a temporary code lives 60 s unless told, at most 30 days; a scene_str is 1–64 characters. */
const DEFAULT_EXPIRE_SECONDS = 60;
const MAX_EXPIRE_SECONDS = 2_592_000;
const MAX_SCENE_STR = 64;
/** The integer scene of a permanent code is 1–100,000 (WeChat allows at most 100,000 permanent codes). */
const MAX_PERMANENT = 100_000;

/** One code the simulator made, for a test to look at (`GET /__sim/qrcodes`). */
export interface SimQrCode {
  readonly appId: string;
  readonly ticket: string;
  readonly url: string;
  readonly actionName: string;
  readonly scene: string;
  readonly expireSeconds: number | null;
}

export interface QrCodes {
  create(tokens: Pick<TokenRegistry, 'check'>, query: URLSearchParams, body: unknown): object;
  list(appId: string): readonly SimQrCode[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * The QR codes of every account: `qrcode/create` checks the token and the body as WeChat does (40001 for a
 * bad token, 47001 for a body that is not JSON or misses its parts, 40097 for a scene or an action_name out
 * of range), and answers `{ticket, expire_seconds, url}` (no expire_seconds for a permanent code).
 */
export function createQrCodes(): QrCodes {
  const made: SimQrCode[] = [];

  function sceneOf(action: string, scene: unknown): string | WechatError {
    if (!isObject(scene)) return WECHAT_ERRORS.dataFormatError;
    if (action.endsWith('STR_SCENE')) {
      const s = scene.scene_str;
      if (typeof s !== 'string' || s.length < 1 || s.length > MAX_SCENE_STR) return INVALID_ARGS;
      return s;
    }
    const id = scene.scene_id;
    const max = action === 'QR_LIMIT_SCENE' ? MAX_PERMANENT : 4_294_967_295;
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > max) return INVALID_ARGS;
    return String(id);
  }

  return {
    create(tokens, query, body) {
      const owner = tokens.check(query.get('access_token'));
      if ('errcode' in owner) return owner;
      if (!isObject(body) || typeof body.action_name !== 'string' || !isObject(body.action_info)) {
        return WECHAT_ERRORS.dataFormatError;
      }
      const action = body.action_name;
      if (!['QR_SCENE', 'QR_STR_SCENE', 'QR_LIMIT_SCENE', 'QR_LIMIT_STR_SCENE'].includes(action))
        return INVALID_ARGS;
      const scene = sceneOf(action, body.action_info.scene);
      if (typeof scene !== 'string') return scene;
      const permanent = action.startsWith('QR_LIMIT');
      const asked = body.expire_seconds;
      const expireSeconds = permanent
        ? null
        : Math.min(
            MAX_EXPIRE_SECONDS,
            typeof asked === 'number' && asked > 0 ? Math.floor(asked) : DEFAULT_EXPIRE_SECONDS,
          );
      const id = randomBytes(12).toString('base64url');
      const code: SimQrCode = {
        appId: owner.appId,
        ticket: Buffer.from(`sim-qr:${owner.appId}:${id}`).toString('base64'),
        url: `http://weixin.qq.com/q/${id}`,
        actionName: action,
        scene,
        expireSeconds,
      };
      made.push(code);
      return {
        ticket: code.ticket,
        ...(expireSeconds === null ? {} : { expire_seconds: expireSeconds }),
        url: code.url,
      };
    },
    list: (appId) => made.filter((c) => c.appId === appId),
  };
}

const INVALID_ARGS: WechatError = Object.freeze({ errcode: 40097, errmsg: 'invalid args' });
