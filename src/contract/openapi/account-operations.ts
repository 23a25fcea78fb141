import { z } from 'zod';
import { auditQuerySchema, templateLibraryQuerySchema } from '..';
import { APP_ID_PARAMETER, IMAGE, type Operation, operationsOf } from './operation';

const params = z.object({ appId: APP_ID_PARAMETER });
const account = operationsOf('accounts');
const platform = operationsOf('platform');
const audit = operationsOf('audit');
const keys = operationsOf('keys');
const keyParams = z.object({ id: z.string().describe("The key's id.") });

/** `/v1/accounts…`, `/v1/platform…`, `/v1/audit` and `/v1/keys…`: a table, one operation a line. */
// prettier-ignore
export const ACCOUNT_OPERATIONS: readonly Operation[] = [
  account('get /v1/accounts', 'listAccounts', 'Every account (never a secret)', [200, 'The accounts.', 'AccountList'], []),
  account('post /v1/accounts', 'createAccount', 'Add an own account (its AppSecret)', [201, 'The account.', 'Account'], [400, 409, 413], { body: 'AccountCreateRequest' }),
  account('get /v1/accounts/:appId', 'getAccount', 'One account', [200, 'The account.', 'Account'], [404], { params }),
  account('patch /v1/accounts/:appId', 'changeAccount', 'Change an account: the fields given', [200, 'The account.', 'Account'], [400, 404, 413], { params, body: 'AccountPatchRequest' }),
  account('delete /v1/accounts/:appId', 'deleteAccount', 'Delete an account; its open messages are cancelled', [200, 'Deleted.', 'AccountDeleted'], [404], { params }),
  account('post /v1/accounts/:appId/check', 'checkAccount', "Ask WeChat for a fresh access token with the account's AppSecret", [200, "WeChat's answer, in words.", 'AccountCheck'], [400, 404], { params }),
  account('get /v1/accounts/:appId/templates', 'listTemplates', "The account's WeChat template library, to choose a fallback's template from", [200, 'The templates, or why WeChat could not list them.', 'TemplateLibrary'], [400, 404], { params, query: templateLibraryQuerySchema }),
  account('post /v1/accounts/:appId/qrcodes', 'createQrCode', 'Make a parametric QR code (带参数二维码) whose scan carries a scene', [201, 'The code and its PNG image.', 'QrCode'], [400, 404, 409, 413], { params, body: 'QrCodeRequest' }),
  account('post /v1/accounts/:appId/media', 'uploadImage', "Upload an image to the account's permanent media (永久素材), for image steps", [201, 'Its media_id.', 'UploadedMedia'], [400, 404, 409, 413], { params, body: { schema: 'Image', mediaType: IMAGE } }),
  platform('get /v1/platform', 'getPlatform', 'Whether the service runs as a WeChat third-party platform', [200, 'The platform.', 'Platform'], []),
  platform('post /v1/platform/authorizations', 'startAuthorization', 'Start connecting an official account through the platform (404 when it is not configured)', [201, 'The link to open.', 'AuthorizationStarted'], [400, 404, 409, 413], { body: 'AuthorizationStartRequest' }),
  audit('get /v1/audit', 'listAuditEntries', 'Who changed what: sequences, accounts and API keys, newest first', [200, 'A page of entries.', 'AuditList'], [400], { query: auditQuerySchema }),
  keys('get /v1/keys', 'listKeys', 'Every API key, revoked ones included (never the key itself)', [200, 'The keys.', 'KeyList'], []),
  keys('post /v1/keys', 'createKey', "Make an API key for an integration: its accounts and operations; the answer is the only time the key is shown", [201, 'The key, with `key` itself.', 'CreatedKey'], [400, 413], { body: 'KeyCreateRequest' }),
  keys('delete /v1/keys/:id', 'revokeKey', 'Revoke an API key: refused from the next request on', [200, 'The key, revoked.', 'Key'], [404], { params: keyParams }),
];
