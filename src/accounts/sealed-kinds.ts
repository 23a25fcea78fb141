import type { SealedColumn } from '../store/sealed-values';
import { secretContext, type SecretField } from './account';
import { refreshTokenContext } from './platform-tokens';
import { codeContext, ticketContext } from './take-platform-event';

/** Where a sealed cached access token belongs (an account's app id, or `component:<component app id>`). */
export const accessTokenContext = (key: string) => `access token ${key}`;

/** One kind of sealed value: where it is stored and what binds each value to its row. */
export interface SealedKind {
  /** Its name in reports and errors, e.g. `account secret`. */
  readonly name: string;
  readonly column: SealedColumn;
  /** The context it was sealed with, from the key of its row. */
  readonly context: (rowKey: string) => string;
  /**
   * A cache (the access tokens): a value that does not open is discarded and fetched again, rather than
   * stopping a start or a rotation.
   */
  readonly cache: boolean;
}

/** An account's secret field, sealed in its own column. */
const accountSecret = (field: SecretField, column: SealedColumn): SealedKind => ({
  name: `account ${field}`,
  column,
  context: (appId) => secretContext(appId, field),
  cache: false,
});

/** Every kind of sealed value the service stores: what rotation re-seals and start-up checks. */
export const SEALED_KINDS: readonly SealedKind[] = [
  accountSecret('secret', 'accountSecret'),
  accountSecret('token', 'accountToken'),
  accountSecret('encodingAESKey', 'accountEncodingAESKey'),
  accountSecret('previousEncodingAESKey', 'accountPreviousEncodingAESKey'),
  {
    name: 'authorizer refresh token',
    column: 'authorizerRefreshToken',
    context: refreshTokenContext,
    cache: false,
  },
  { name: 'component verify ticket', column: 'componentTicket', context: ticketContext, cache: false },
  { name: 'authorization code', column: 'authorizationCode', context: codeContext, cache: false },
  { name: 'access token', column: 'accessToken', context: accessTokenContext, cache: true },
];
