/**
 * The /v1 API's contract: the zod schemas of its requests (parsed by the routes) and of its answers (the
 * types the response builders produce and the admin app reads). It imports nothing but zod, so the admin
 * app can derive its types from it (tsconfig.contract.json compiles it on its own, without node types).
 */
export * from './accounts';
export * from './audit';
export * from './batch';
export * from './cancellations';
export * from './errors';
export * from './followers';
export * from './journeys';
export * from './keys';
export * from './messages';
export * from './results';
export * from './sequences';
export * from './platform';
export * from './quiet-hours';
