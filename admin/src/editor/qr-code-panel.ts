import { h, replace } from '../dom.js';
import { when } from '../format.js';
import { t } from '../i18n/index.js';
import type { QrCodeView } from '../types.js';

/** Makes the account's parametric QR code for a scene (`POST /v1/accounts/:appId/qrcodes`). */
export type QrCodeSource = (scene: string, permanent: boolean) => Promise<QrCodeView>;

export interface QrCodePanel {
  readonly el: HTMLElement;
  /** Offered only while the trigger is a follow or a scan with a scene. */
  show(visible: boolean): void;
}

/**
 * 生成二维码: a parametric QR code for the trigger's scene — temporary (30 days) or permanent — shown, with
 * its expiry in the account's zone, and saved as a PNG by a download link (the image is the API's data URL).
 */
export function createQrCodePanel(scene: () => string, zone: () => string, make: QrCodeSource): QrCodePanel {
  const words = t().editor.qrcode;
  const kind = h(
    'select',
    { name: 'qrcode-kind', 'aria-label': words.kind },
    h('option', { value: 'temporary' }, words.temporary),
    h('option', { value: 'permanent' }, words.permanent),
  );
  const result = h('div', { class: 'qrcode-result', role: 'status' });
  const create = h(
    'button',
    { type: 'button', class: 'secondary small', 'data-action': 'make-qrcode' },
    words.make,
  );
  create.addEventListener('click', () => {
    const s = scene();
    create.disabled = true;
    replace(result, h('p', { class: 'hint' }, t().common.loading));
    make(s, kind.value === 'permanent')
      .then((code) =>
        replace(
          result,
          h('img', { class: 'qrcode', src: code.image, alt: words.alt(s), width: 180, height: 180 }),
          h(
            'p',
            { class: 'hint' },
            code.expiresAt ? words.expires(when(code.expiresAt, zone())) : words.never,
          ),
          h(
            'a',
            {
              class: 'button secondary small',
              href: code.image,
              download: `qrcode-${s}.png`,
              'data-action': 'download-qrcode',
            },
            words.download,
          ),
        ),
      )
      .catch((err: unknown) =>
        replace(result, h('p', { class: 'error' }, err instanceof Error ? err.message : String(err))),
      )
      .finally(() => (create.disabled = false));
  });
  const el = h(
    'div',
    { class: 'qrcode-panel' },
    h('div', { class: 'qrcode-controls' }, kind, create),
    result,
  );
  return {
    el,
    show(visible) {
      el.hidden = !visible;
    },
  };
}
