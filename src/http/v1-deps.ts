import type { AccountRegistry } from '../accounts/registry';
import type { KeyRegistry } from '../access/key-registry';
import type { SecretBox } from '../accounts/secret-box';
import type { Config } from '../config';
import type { ScheduleDeps } from '../scheduling/schedule-messages';
import type { MediaUploader } from '../wechat/media';
import type { QrCodeMaker } from '../wechat/qrcodes';
import type { TemplateLibrary } from '../wechat/template-library';

/** What the /v1 routers need. */
export interface V1Deps extends ScheduleDeps {
  readonly config: Config;
  /** The accounts as this process sees them (re-read after its own changes). */
  readonly accounts: AccountRegistry;
  /** The usable API keys as this process sees them (re-read after its own changes). */
  readonly keys: KeyRegistry;
  /** Seals the secrets the account routes write. */
  readonly box: SecretBox;
  /** The api answers once rows commit; their publishes run in the background, visible to shutdown. */
  readonly track: (work: Promise<unknown>) => void;
  /** The accounts' WeChat template libraries, for the save-time warnings about unknown template ids. */
  readonly templates: TemplateLibrary;
  /** Makes the accounts' parametric QR codes. */
  readonly qrcodes: QrCodeMaker;
  /** Uploads images to the accounts' permanent media. */
  readonly media: MediaUploader;
}
