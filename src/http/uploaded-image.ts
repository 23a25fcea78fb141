import { type ErrorRule, IMAGE_TYPES } from '../contract';
import { ValidationError } from '../errors';

/** Each image type's first bytes: a body must be what its Content-Type says. */
const SIGNATURES: Readonly<Record<(typeof IMAGE_TYPES)[number], { ext: string; starts: readonly number[] }>> =
  {
    'image/png': { ext: 'png', starts: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
    'image/jpeg': { ext: 'jpg', starts: [0xff, 0xd8, 0xff] },
    'image/gif': { ext: 'gif', starts: [0x47, 0x49, 0x46, 0x38] },
    'image/bmp': { ext: 'bmp', starts: [0x42, 0x4d] },
  };

/** The uploaded image, or a 400 naming what is wrong: its type, an empty body, bytes of another format. */
export function imageOf(
  header: string | undefined,
  body: unknown,
): { bytes: Buffer; contentType: string; filename: string } {
  const contentType = (header ?? '').split(';')[0].trim().toLowerCase();
  const type = IMAGE_TYPES.find((t) => t === contentType);
  const refuse = (path: string, message: string, rule: ErrorRule) =>
    new ValidationError('invalid image', [{ path, message, rule }]);
  if (!type) {
    throw refuse('content-type', `must be one of: ${IMAGE_TYPES.join(', ')}`, {
      kind: 'one_of',
      values: [...IMAGE_TYPES],
    });
  }
  const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
  if (bytes.length === 0) {
    throw refuse('body', 'must not be empty', {
      kind: 'too_small',
      origin: 'bytes',
      minimum: 1,
      inclusive: true,
    });
  }
  const { ext, starts } = SIGNATURES[type];
  if (!starts.every((b, i) => bytes[i] === b)) {
    throw refuse('body', `is not a ${ext.toUpperCase()} image, as its Content-Type ${type} says`, {
      kind: 'format',
      format: type,
    });
  }
  return { bytes, contentType: type, filename: `image.${ext}` };
}
