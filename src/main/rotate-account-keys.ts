/**
 * `npm run rotate-account-keys`: after ACCOUNTS_ENCRYPTION_KEY was replaced (the old key moved to
 * ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS), seals every stored sealed value again with the new key — the
 * accounts' secrets, the platform's refresh tokens, ticket and authorization codes, the cached access
 * tokens — and prints what it did per kind. Safe to run again.
 */
import { createSecretBox } from '../accounts/secret-box';
import { describeRotation, rotateSealedValues } from '../accounts/rotate-keys';
import { loadAccountKeysConfig } from '../config';
import { createPool } from '../db/pool';
import { createLogger } from '../logger';
import { errorText } from '../loggable-error';

async function main(): Promise<void> {
  const config = loadAccountKeysConfig();
  const logger = createLogger({ level: config.logLevel, name: 'wechat-drip-rotate-keys' });
  if (!config.accountsEncryptionKey)
    throw new Error('ACCOUNTS_ENCRYPTION_KEY is required: it is the key to seal with');
  const box = createSecretBox(config.accountsEncryptionKey, config.accountsPreviousEncryptionKeys);
  const pool = createPool({ connectionString: config.databaseUrl, max: 2, logger });
  try {
    const report = await rotateSealedValues(pool, box);
    for (const kind of report) process.stdout.write(`${describeRotation(kind)}\n`);
    const resealed = report.reduce((n, k) => n + k.resealed, 0);
    process.stdout.write(`${resealed} sealed values re-sealed with key ${box.keyId ?? ''}\n`);
  } finally {
    await pool.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`rotation failed: ${errorText(err)}\n`);
  process.exit(1);
});
