import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stdout. Secrets are redacted by path as a second line of defence; code never
 * logs tokens, secrets or message bodies at info level in the first place.
 */
export function createLogger(opts: { level: string; name: string }): Logger {
  return pino({
    name: opts.name,
    level: opts.level,
    base: { pid: process.pid, role: opts.name },
    redact: {
      paths: [
        '*.secret',
        '*.accessToken',
        '*.access_token',
        '*.authorization',
        '*.adminToken',
        '*.componentSecret',
        '*.componentToken',
        '*.componentEncodingAESKey',
        '*.component_appsecret',
        '*.component_verify_ticket',
        '*.component_access_token',
        '*.authorizer_access_token',
        '*.authorizer_refresh_token',
        'secret',
        'token',
      ],
      censor: '[redacted]',
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
