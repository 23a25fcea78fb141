import { raw, Router } from 'express';
import { actorOf } from './actor';
import type { z } from 'zod';
import type { Account } from '../accounts/account';
import { createAccount, patchAccount, removeAccount } from '../accounts/manage-accounts';
import {
  accountCreateSchema,
  type AccountDeleted,
  type AccountList,
  accountPatchSchema,
  IMAGE_MAX_BYTES,
  qrCodeRequestSchema,
  type UploadedMediaView,
  type QrCodeView,
  templateLibraryQuerySchema,
  type TemplateLibraryView,
} from '../contract';
import { NotFoundError, ValidationError } from '../errors';
import { listPausedAccounts } from '../store/account-states';
import { sentToday } from '../store/send-pacing';
import { parseInput } from '../validation';
import { checkCredentials } from '../wechat/check-credentials';
import { accountView } from './account-view';
import { guardPathParams } from './input-guard';
import { jsonBody } from './json-body';
import { imageOf } from './uploaded-image';
import type { V1Deps } from './v1-deps';

/** The body parsed by `schema`, or a 400 naming every bad field (nothing is written). */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  return parseInput(schema, jsonBody(body), 'invalid account');
}

/**
 * `/v1/accounts…`: the accounts, managed as data. Secrets are write-only: every answer is the account
 * view (`hasSecret`, …), never a secret.
 */
export function createAccountRouter(deps: V1Deps): Router {
  const router = Router();
  guardPathParams(router, ['appId']);
  const known = (appId: string): Account => {
    const account = deps.accounts.get(appId);
    if (!account) throw new NotFoundError(`account ${appId}`);
    return account;
  };
  /** What the views need beside the accounts: which are paused, and each one's sends today. */
  const stateOf = async () => {
    const [paused, sent] = await Promise.all([listPausedAccounts(deps.pool), sentToday(deps.pool)]);
    return (a: Account) => accountView(a, { paused: paused.has(a.appId), sentToday: sent.get(a.appId) });
  };
  const view = async (a: Account) => (await stateOf())(a);

  router.get('/', async (_req, res) => {
    const list: AccountList = { accounts: deps.accounts.all().map(await stateOf()) };
    res.json(list);
  });

  router.post('/', async (req, res) => {
    const created = await createAccount(deps, parseBody(accountCreateSchema, req.body), actorOf(req));
    res.status(201).json(await view(created));
  });

  router.get('/:appId', async (req, res) => {
    res.json(await view(known(String(req.params.appId))));
  });

  router.patch('/:appId', async (req, res) => {
    const patch = parseBody(accountPatchSchema, req.body);
    res.json(await view(await patchAccount(deps, String(req.params.appId), patch, actorOf(req))));
  });

  router.delete('/:appId', async (req, res) => {
    const appId = String(req.params.appId);
    const { cancelled, archivedSequences } = await removeAccount(deps, appId, actorOf(req));
    res.json({ appId, deleted: true, cancelled, archivedSequences } satisfies AccountDeleted);
  });

  router.get('/:appId/templates', async (req, res) => {
    const { appId } = known(String(req.params.appId));
    const { refresh } = parseInput(templateLibraryQuerySchema, req.query, 'invalid query', {
      prefix: 'query',
    });
    const answer = await deps.templates.templates(appId, [], refresh === 'true');
    const library: TemplateLibraryView = answer.ok
      ? {
          appId,
          ok: true,
          fetchedAt: answer.fetchedAt.toISOString(),
          templates: answer.templates.map((t) => ({ ...t, fields: [...t.fields] })),
        }
      : { appId, ok: false, reason: answer.reason, templates: [] };
    res.json(library);
  });

  router.post('/:appId/qrcodes', async (req, res) => {
    const { appId } = known(String(req.params.appId));
    const asked = parseInput(qrCodeRequestSchema, jsonBody(req.body), 'invalid QR code');
    const made = await deps.qrcodes.make(appId, asked);
    res.status(201).json({
      appId,
      scene: asked.scene,
      permanent: asked.permanent,
      ticket: made.ticket,
      url: made.url,
      expiresAt: made.expiresAt?.toISOString() ?? null,
      image: made.image,
    } satisfies QrCodeView);
  });

  // The image itself is the body, as its Content-Type says (a file input's File, sent as it is).
  router.post('/:appId/media', raw({ type: () => true, limit: IMAGE_MAX_BYTES }), async (req, res) => {
    const { appId } = known(String(req.params.appId));
    const image = imageOf(req.headers['content-type'], req.body);
    const uploaded = await deps.media.uploadImage(appId, image);
    res.status(201).json({
      appId,
      type: 'image',
      mediaId: uploaded.mediaId,
      url: uploaded.url,
      bytes: image.bytes.length,
    } satisfies UploadedMediaView);
  });

  router.post('/:appId/check', async (req, res) => {
    const account = known(String(req.params.appId));
    if (account.secret === null) {
      throw new ValidationError('the account has no AppSecret to check', [
        { path: 'secret', message: 'is not set', rule: { kind: 'required' } },
      ]);
    }
    const baseUrl = deps.config.wechatApiBaseUrl;
    res.json(
      await checkCredentials(
        { baseUrl, timeoutMs: deps.config.wechatTimeoutMs },
        account.appId,
        account.secret,
      ),
    );
  });
  return router;
}
