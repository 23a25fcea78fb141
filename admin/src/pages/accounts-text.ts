import { plural } from '../format.js';
import type { Account } from '../types.js';

/**
 * Every word the Accounts pages show, in one place, so that the translation (issue 15) moves one object
 * into its catalog instead of hunting strings through the code.
 */
export const ACCOUNTS_TEXT = {
  title: 'Accounts',
  newAccount: 'New account',
  editTitle: (appId: string) => `Edit account ${appId}`,
  newTitle: 'New account',
  empty: 'No accounts yet. Add the first one.',
  loadFailed: (why: string) => `Could not load the accounts: ${why}`,
  columns: ['App ID', 'Name', 'Kind', 'Status', 'Push mode', 'Window policy', 'Send rate', 'Sent today'],
  webhookLabel: 'Server URL for WeChat’s console (服务器配置)',
  noWebhook: 'no push token: the webhook refuses this account’s pushes',
  copy: 'Copy',
  copied: (url: string) => `Copied ${url}`,
  copyFailed: 'This browser does not allow copying here: the URL is selected, press Ctrl+C (⌘C).',
  ratePerSecond: (n: number) => `${n}/s`,
  /** WeChat's daily quota of customer-service sends (reference/wechat.md §1); templates have their own. */
  sentCustom: (n: number) => `${n.toLocaleString('en')} of 500,000`,
  sentTemplate: (n: number) => `templates: ${n.toLocaleString('en')}`,
  sentTitle:
    'Sends today (Asia/Shanghai) by every worker: customer-service messages against WeChat’s daily quota of 500,000, and template messages',
  kind: { own: 'own AppSecret', platform: 'authorized (third-party platform)' },
  status: {
    active: 'active',
    disabled: 'disabled',
    paused: 'paused (daily quota)',
    unauthorized: 'unauthorized',
  },
  edit: 'Edit',
  disable: 'Disable',
  enable: 'Enable',
  remove: 'Delete',
  check: 'Check',
  checking: 'Checking…',
  checkOk: 'OK',
  checkFailed: 'Not OK',
  disableTitle: (appId: string) => `Disable ${appId}?`,
  disableBody:
    'Messages that fall due while the account is disabled are not sent: they end skipped (account_disabled). ' +
    'The webhook keeps accepting its pushes. Messages due after you enable it again go out as usual.',
  disabled: (appId: string) => `${appId} is disabled.`,
  enabled: (appId: string) => `${appId} is enabled.`,
  deleteTitle: (appId: string) => `Delete ${appId}?`,
  deleteBody: (a: Account) =>
    `This cancels every pending message of ${a.name ?? a.appId} (the service counts them as it deletes), ` +
    'refuses its pushes from then on and cannot be undone.',
  deleted: (appId: string, cancelled: number) =>
    `Deleted ${appId}: ${plural(cancelled, 'pending message')} cancelled.`,
  // The form.
  fields: {
    appId: 'App ID (AppID)',
    appIdHint: 'From WeChat’s console (设置与开发 → 基本配置); it cannot change later.',
    name: 'Name',
    secret: 'AppSecret',
    token: 'Push token (Token)',
    tokenHint: 'The Token set in WeChat’s console (服务器配置); without it the webhook refuses the pushes.',
    encodingAESKey: 'EncodingAESKey',
    previousEncodingAESKey: 'Previous EncodingAESKey (while rotating)',
    pushMode: 'Push mode (消息加解密方式)',
    windowPolicy: 'Contact window policy',
    sendRate: 'Send rate (messages per second)',
    frequencyCap: 'Frequency cap (drip messages per follower per day; empty: none)',
    atLeastOnce: 'At least once: resend a message whose outcome is unknown after a crash',
    enabled: 'Enabled: send this account’s messages',
  },
  pushModes: {
    plaintext: 'plaintext (明文模式)',
    compatible: 'compatible (兼容模式)',
    safe: 'safe (安全模式)',
  },
  presets: {
    official: 'official (WeChat’s current table)',
    'legacy-48h': 'legacy-48h (48 h after an interaction)',
    none: 'none (the service does not check)',
    custom: 'custom rules',
  },
  ruleFor: { message: 'A user message', subscribe: 'A follow', scan: 'A QR scan', click: 'A menu click' },
  ruleCount: 'messages',
  ruleWithin: 'within',
  set: 'set',
  notSet: 'not set',
  willRemove: 'will be removed',
  clear: 'Remove',
  undo: 'Keep',
  keepHint: 'Leave empty to keep it.',
  save: 'Save',
  create: 'Create account',
  cancel: 'Cancel',
  saved: (appId: string) => `Saved ${appId}.`,
  created: (appId: string) => `Created ${appId}. Paste its server URL into WeChat’s console.`,
  notSaved: (n: number) =>
    `Not saved: ${plural(n, 'problem')}, shown next to ${n === 1 ? 'its field' : 'their fields'}.`,
  notSavedBecause: (why: string) => `Not saved: ${why}`,
  notFound: (appId: string) => `There is no account ${appId}.`,
  // Connecting an official account through the third-party platform.
  connect: 'Connect an official account',
  connecting: 'Asking WeChat…',
  connectUnavailable:
    'Connecting official accounts (they authorize this service instead of handing over their AppSecret) ' +
    'needs the service to run as a WeChat third-party platform: the WECHAT_COMPONENT_* settings.',
  connectReady: (until: string, left: string) =>
    'Open WeChat’s authorization page: the official account’s admin scans its QR code with WeChat and ' +
    `consents, and WeChat brings you back here. The link works once, until ${until} (${left}).`,
  authorize: 'Open WeChat’s authorization page',
  connectFailed: (why: string) => `Could not start connecting: ${why}`,
  connected: (appId: string, outcome: 'created' | 'updated') =>
    outcome === 'created'
      ? `Connected ${appId}: a new account, through the platform.`
      : `Connected ${appId} again: it is enabled with its new authorization.`,
  granted: (ids: readonly number[]) =>
    ids.length === 0 ? 'It granted no permission sets.' : `Permission sets granted: ${ids.join(', ')}.`,
  allChannels: 'It can be sent customer-service and template messages.',
  missingChannels: (channels: readonly string[]) =>
    `Not granted: ${channels.join('; ')}. Sequences cannot use that for it until its admin authorizes ` +
    'again, granting it.',
  channels: {
    custom: 'customer-service messages (set 1 消息管理, or 6, 19, 100–101)',
    template: 'template messages (set 7 群发与通知, or 100–101)',
  },
  connectErrors: {
    auth_code_invalid: 'The authorization code is unknown or was used already: connect again.',
    auth_code_expired: 'The authorization code expired before it reached the service: connect again.',
    account_exists:
      'An own account (with its AppSecret) has that app id here: delete it first, then connect again.',
    validation_error:
      'WeChat’s answer gave the service no API access to the account: connect again, granting the permissions.',
  } as Record<string, string | undefined>,
  connectError: (code: string) =>
    `Connecting the account failed (${code}): connect again; the service’s log says more.`,
};
