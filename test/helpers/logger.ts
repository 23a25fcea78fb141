import pino from 'pino';
import type { Logger } from '../../src/logger';

/** A logger that writes nothing; set TEST_LOG=debug to see the service's logs while a test runs. */
export const silentLogger: Logger = pino({ level: process.env.TEST_LOG ?? 'silent' });
