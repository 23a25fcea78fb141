/**
 * `npm run resume-account -- <appId>`: lifts a 45009 pause once the quota was reset (`clear_quota`), so
 * the messages it held go out now instead of at 00:00 China time.
 */
import { loadConfig } from '../config';
import { createLogger } from '../logger';
import { openCliContext } from './cli-context';
import { dispatch } from '../scheduling/dispatch';
import { resumeAccount } from '../scheduling/resume-account';
import { findAccount, listAccounts } from '../store/accounts';
import { errorText } from '../loggable-error';

async function main(): Promise<void> {
  const appId = process.argv[2];
  const config = loadConfig();
  if (!appId) throw new Error('usage: npm run resume-account -- <appId>');
  const logger = createLogger({ level: config.logLevel, name: 'wechat-drip-resume' });
  const { pool, publisher, close } = await openCliContext(config, logger, 'wechat-drip resume');
  try {
    if (!(await findAccount(pool, appId))) {
      const known = (await listAccounts(pool)).map((a) => a.appId);
      throw new Error(`no account ${appId} (one of: ${known.join(', ') || 'none'})`);
    }
    const { lifted, held } = await resumeAccount(pool, appId);
    // A wake-up that is not confirmed leaves its row for the relay's overdue sweep.
    const { queued } = await dispatch({ pool, publisher, logger }, held, 'relay');
    process.stdout.write(
      lifted
        ? `resumed ${appId}: ${held.length} held messages due again, ${queued} woken\n`
        : `${appId} was not paused\n`,
    );
  } finally {
    await close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`resume failed: ${errorText(err)}\n`);
  process.exit(1);
});
