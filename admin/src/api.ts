import { t } from './i18n/index.js';
import { clearToken, readToken } from './session.js';
import type { ErrorDetail } from './types.js';

/**
 * An error answer of the API, `{error:{code,message,details?}}`, its message and each detail's in the page's
 * language (translated by code and rule; in English, the API's own words).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Api {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  put<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  del<T>(path: string): Promise<T>;
  /** POSTs a file as it is, its type as the Content-Type (an image upload). */
  upload<T>(path: string, file: Blob): Promise<T>;
}

/** The base of the API relative to the app: the app is served at /admin, the API at /v1. */
const API_BASE = '/v1';

/**
 * Calls /v1 with the session's bearer token. A 401 means the token is wrong or was rotated: the session
 * is forgotten and `onUnauthorized` sends the user back to sign-in.
 */
export function createApi(onUnauthorized: () => void, token: () => string | null = readToken): Api {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const bearer = token();
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    const file = body instanceof Blob ? body : null;
    if (file) headers['content-type'] = file.type || 'application/octet-stream';
    else if (body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    let res: Response;
    try {
      res = await fetch(API_BASE + path, {
        method,
        headers,
        body: file ?? (body === undefined ? null : JSON.stringify(body)),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, 'network', t().common.unreachable);
    }
    const payload = (await res.json().catch(() => null)) as unknown;
    if (res.status === 401) {
      clearToken();
      onUnauthorized();
    }
    if (!res.ok) throw toApiError(res.status, payload);
    return payload as T;
  }
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
    put: (path, body) => call('PUT', path, body),
    patch: (path, body) => call('PATCH', path, body),
    del: (path) => call('DELETE', path),
    upload: (path, file) => call('POST', path, file),
  };
}

function toApiError(status: number, payload: unknown): ApiError {
  const error = (payload as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)
    ?.error;
  const details = Array.isArray(error?.details)
    ? (error.details as unknown[]).filter(
        (d): d is ErrorDetail =>
          typeof (d as ErrorDetail | null)?.path === 'string' &&
          typeof (d as ErrorDetail).message === 'string',
      )
    : [];
  const { errors } = t();
  const code = typeof error?.code === 'string' ? error.code : `http_${status}`;
  // WeChat's errcode, when the refusal is WeChat's (`wechat_refused`): what to fix depends on it.
  const errcode = (error?.details as { errcode?: unknown } | undefined)?.errcode;
  return new ApiError(
    status,
    code,
    typeof error?.message === 'string'
      ? errors.refusal(code, error.message, typeof errcode === 'number' ? errcode : undefined)
      : t().common.answered(status),
    details.map((d) => ({ ...d, message: errors.detail(d) })),
  );
}

/** Path segments are user input (openids, appIds): always encoded. */
export const seg = (value: string | number): string => encodeURIComponent(String(value));
