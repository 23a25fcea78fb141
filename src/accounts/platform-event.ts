import { AppError } from '../errors';
import { AUTHORIZATION_STATES, type AuthorizationState } from '../store/platform';

/** What the authorization-event URL receives, typed (reference/wechat-platform.md §1.2, §1.7). */
export type PlatformEvent =
  | {
      readonly infoType: 'component_verify_ticket';
      readonly createTime: Date;
      readonly ticket: string;
    }
  | {
      readonly infoType: Exclude<AuthorizationState, 'unauthorized'>;
      readonly createTime: Date;
      readonly authorizerAppId: string;
      readonly authorizationCode: string;
      readonly authorizationCodeExpiresAt: Date | null;
      readonly preAuthCode: string | null;
    }
  | { readonly infoType: 'unauthorized'; readonly createTime: Date; readonly authorizerAppId: string }
  /** An InfoType this service does not act on (mini-program registration notices, …): answered, not kept. */
  | { readonly infoType: 'other'; readonly createTime: Date; readonly name: string };

/** 400 `push_malformed`: an authentic push that lacks what it needs. */
export const malformed = (message: string): AppError =>
  new AppError('push_malformed', message, { httpStatus: 400 });
/** 400 `push_wrong_app`: a push for another component than ours. */
export const wrongApp = (): AppError =>
  new AppError('push_wrong_app', 'the push names another component app id', { httpStatus: 400 });

function required(fields: Readonly<Record<string, string>>, name: string): string {
  const value = fields[name];
  if (value === undefined || value === '') throw malformed(`the push has no ${name}`);
  return value;
}

function epochSeconds(text: string, name: string): Date {
  if (!/^\d{1,12}$/.test(text)) throw malformed(`${name} must be epoch seconds`);
  return new Date(Number(text) * 1000);
}

/** Below this, AuthorizationCodeExpiredTime is read as a duration in seconds rather than an instant (2001). */
const EPOCH_FLOOR_S = 1e9;

/**
 * The code's expiry: WeChat documents AuthorizationCodeExpiredTime as "seconds" without saying whether a
 * duration or an instant; SDK fixtures carry an instant (≈ CreateTime + 3600), a duration would be small.
 */
function codeExpiry(text: string | undefined, createTime: Date): Date | null {
  if (text === undefined || text === '') return null;
  const value = epochSeconds(text, 'AuthorizationCodeExpiredTime');
  const seconds = value.getTime() / 1000;
  return seconds < EPOCH_FLOOR_S ? new Date(createTime.getTime() + seconds * 1000) : value;
}

/**
 * Types the decrypted fields of a push to the authorization-event URL, whose AppId must be
 * `componentAppId`. Throws 400 `push_wrong_app` for another component, `push_malformed` for a push that
 * lacks what its InfoType needs.
 */
export function parsePlatformEvent(
  fields: Readonly<Record<string, string>>,
  componentAppId: string,
): PlatformEvent {
  if (required(fields, 'AppId') !== componentAppId) throw wrongApp();
  const createTime = epochSeconds(required(fields, 'CreateTime'), 'CreateTime');
  const infoType = required(fields, 'InfoType');
  if (infoType === 'component_verify_ticket') {
    return { infoType, createTime, ticket: required(fields, 'ComponentVerifyTicket') };
  }
  if (infoType === 'unauthorized') {
    return { infoType, createTime, authorizerAppId: required(fields, 'AuthorizerAppid') };
  }
  if ((AUTHORIZATION_STATES as readonly string[]).includes(infoType)) {
    return {
      infoType: infoType as 'authorized' | 'updateauthorized',
      createTime,
      authorizerAppId: required(fields, 'AuthorizerAppid'),
      authorizationCode: required(fields, 'AuthorizationCode'),
      authorizationCodeExpiresAt: codeExpiry(fields.AuthorizationCodeExpiredTime, createTime),
      preAuthCode: fields.PreAuthCode || null,
    };
  }
  return { infoType: 'other', createTime, name: infoType };
}
