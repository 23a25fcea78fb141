import { FormData, request } from 'undici';
import { ConflictError } from '../errors';
import { describeRequestError, interpretAnswer, type WechatAnswer } from './http-answer';
import { acceptedJson, callWithToken } from './token-call';
import type { TokenStore } from './tokens';

/** An image WeChat keeps as the account's permanent media (永久素材), for image steps to send by `media_id`. */
export interface UploadedImage {
  readonly mediaId: string;
  /** Where WeChat serves it (for a preview; a message names it by `mediaId`). */
  readonly url: string;
}

export interface MediaUploader {
  uploadImage(
    appId: string,
    image: { bytes: Buffer; contentType: string; filename: string },
  ): Promise<UploadedImage>;
}

const ADD_MATERIAL_PATH = '/cgi-bin/material/add_material';

/**
 * Uploads images with `material/add_material?type=image` (multipart, the file as `media`): permanent media,
 * because a temporary one (`media/upload`) lives 3 days and a step may go out later than that
 * (reference/wechat.md §1). A token WeChat rejects is expired and the call made once more; WeChat's refusal
 * is a 409 `wechat_refused` with its errcode, no answer a 503 `wechat_unavailable`.
 */
export function createMediaUploader(opts: {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly tokens: TokenStore;
}): MediaUploader {
  async function post(token: string, image: { bytes: Buffer; contentType: string; filename: string }) {
    const form = new FormData();
    form.append('media', new Blob([image.bytes], { type: image.contentType }), image.filename);
    try {
      const res = await request(
        `${opts.baseUrl}${ADD_MATERIAL_PATH}?access_token=${encodeURIComponent(token)}&type=image`,
        { method: 'POST', body: form, headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs },
      );
      return interpretAnswer(res.statusCode, await res.body.text(), true);
    } catch (err) {
      return { errcode: null, errmsg: describeRequestError(err) } satisfies WechatAnswer;
    }
  }

  return {
    async uploadImage(appId, image) {
      const answer = await callWithToken(opts.tokens, appId, (token) => post(token, image));
      const { media_id: mediaId, url } = acceptedJson(answer, 'the image');
      if (typeof mediaId !== 'string') {
        throw new ConflictError('wechat_refused', 'WeChat answered an upload without media_id', {
          errcode: 0,
        });
      }
      return { mediaId, url: typeof url === 'string' ? url : '' };
    },
  };
}
