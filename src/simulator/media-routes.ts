import { randomBytes } from 'node:crypto';
import type { TokenRegistry } from './tokens';
import type { WechatError } from './wechat-errors';

/** WeChat's permanent media API (永久素材): `POST …?access_token=&type=image`, the file as multipart `media`. */
export const ADD_MATERIAL_PATH = '/cgi-bin/material/add_material';

/** WeChat's limit for a permanent image (reference/wechat.md §1: 10 MB; bmp/png/jpeg/jpg/gif). */
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
/** The upload body may carry the multipart framing beside the file. */
export const UPLOAD_MAX_BYTES = IMAGE_MAX_BYTES + 64 * 1024;

/** An image the simulator keeps as WeChat would (its bytes are not kept: their size and type are). */
export interface SimMedia {
  readonly appId: string;
  readonly mediaId: string;
  readonly url: string;
  readonly type: string;
  readonly filename: string;
  readonly contentType: string;
  readonly bytes: number;
}

export interface MediaLibrary {
  /** Answers `add_material`: the token, `type=image`, one `media` part holding an image of WeChat's formats. */
  add(
    tokens: Pick<TokenRegistry, 'check'>,
    query: URLSearchParams,
    contentType: string,
    body: Buffer | null,
  ): object;
  list(appId: string): readonly SimMedia[];
}

const err = (errcode: number, errmsg: string): WechatError => Object.freeze({ errcode, errmsg });
const INVALID_MEDIA_TYPE = err(40004, 'invalid media type');
const INVALID_FILE_TYPE = err(40005, 'invalid file type');
const INVALID_IMAGE_SIZE = err(40009, 'invalid image size');
const MEDIA_MISSING = err(41005, 'media data missing');

/** The image formats WeChat takes, by their first bytes. */
const SIGNATURES: readonly [string, readonly number[]][] = [
  ['png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['jpeg', [0xff, 0xd8, 0xff]],
  ['gif', [0x47, 0x49, 0x46, 0x38]],
  ['bmp', [0x42, 0x4d]],
];
const formatOf = (bytes: Buffer): string | null =>
  SIGNATURES.find(([, sig]) => sig.every((b, i) => bytes[i] === b))?.[0] ?? null;

interface Part {
  readonly name: string;
  readonly filename: string | null;
  readonly contentType: string;
  readonly body: Buffer;
}

/** The parts of a `multipart/form-data` body (RFC 7578), or null when it is not one. */
export function multipartParts(contentType: string, body: Buffer): Part[] | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!/^multipart\/form-data/i.test(contentType) || !boundary) return null;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: Part[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) return null;
    const part = body.subarray(start + 2, next - 2); // after CRLF, before the CRLF that precedes the delimiter
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) return null;
    const head = part.subarray(0, split).toString('utf8');
    const disposition = /content-disposition:[^\r\n]*\bname="([^"]*)"(?:[^\r\n]*\bfilename="([^"]*)")?/i.exec(
      head,
    );
    if (!disposition) return null;
    parts.push({
      name: disposition[1],
      filename: disposition[2] ?? null,
      contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1].trim() ?? 'application/octet-stream',
      body: part.subarray(split + 4),
    });
    at = next;
  }
  return parts;
}

/**
 * The permanent images of every account: `add_material` checks the token, the `type` (image only here),
 * the multipart `media` part (41005 without it), the file's format by its bytes (40005 for another) and
 * its size (40009 over 10 MB), and answers `{media_id, url}` as WeChat does.
 */
export function createMediaLibrary(): MediaLibrary {
  const kept: SimMedia[] = [];
  return {
    add(tokens, query, contentType, body) {
      const owner = tokens.check(query.get('access_token'));
      if ('errcode' in owner) return owner;
      if (query.get('type') !== 'image') return INVALID_MEDIA_TYPE;
      if (body === null) return INVALID_IMAGE_SIZE;
      const media = multipartParts(contentType, body)?.find((p) => p.name === 'media' && p.filename !== null);
      if (!media || media.body.length === 0) return MEDIA_MISSING;
      if (media.body.length > IMAGE_MAX_BYTES) return INVALID_IMAGE_SIZE;
      if (formatOf(media.body) === null) return INVALID_FILE_TYPE;
      const id = randomBytes(16).toString('base64url');
      const item: SimMedia = {
        appId: owner.appId,
        mediaId: `sim-media-${id}`,
        url: `http://mmbiz.qpic.cn/sim/${id}/0`,
        type: 'image',
        filename: media.filename ?? '',
        contentType: media.contentType,
        bytes: media.body.length,
      };
      kept.push(item);
      return { media_id: item.mediaId, url: item.url };
    },
    list: (appId) => kept.filter((m) => m.appId === appId),
  };
}
