import { accountLabel, accountName } from './account-label.js';
import { seg } from './api.js';
import { h, type Child } from './dom.js';
import { hasKey, t, type Catalog } from './i18n/index.js';
import { BASE } from './router.js';
import type { Account, AccountPatch, AuditEntry, Sequence } from './types.js';

/** What the audit page reads besides the log: the accounts, and the sequences that still exist by id. */
export interface AuditKnown {
  readonly accounts: readonly Account[];
  readonly sequences: ReadonlyMap<string, Sequence>;
}

/**
 * Each account field in the page's words, for `account.updated` (which names the fields a request set): the
 * account form's label, or a short name where that label is a sentence. Every field the API takes is here,
 * or this does not compile.
 */
const FIELD_NAMES: Record<keyof AccountPatch, (words: Catalog) => string> = {
  name: (w) => w.accounts.fields.name,
  secret: (w) => w.accounts.fields.secret,
  token: (w) => w.accounts.fields.token,
  encodingAESKey: (w) => w.accounts.fields.encodingAESKey,
  previousEncodingAESKey: (w) => w.accounts.fields.previousEncodingAESKey,
  pushMode: (w) => w.accounts.fields.pushMode,
  windowPolicy: (w) => w.accounts.fields.windowPolicy,
  sendRatePerSecond: (w) => w.accounts.fields.sendRate,
  timeZone: (w) => w.accounts.fields.timeZone,
  frequencyCapPerDay: (w) => w.audit.fields.frequencyCapPerDay,
  quietHours: (w) => w.audit.fields.quietHours,
  atLeastOnce: (w) => w.audit.fields.atLeastOnce,
  enabled: (w) => w.audit.fields.enabled,
};

// An entry's details are `Record<string, unknown>` (their shape depends on the action): read, not trusted.
const numberIn = (value: unknown): number | null => (typeof value === 'number' ? value : null);
const stringIn = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const stringsIn = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/**
 * A sequence by name: a link to its page while it exists; a deleted one's name as plain text (its id, as
 * code, when no name is known).
 */
function sequenceRef(id: string, name: string | null, known: AuditKnown): Child {
  const text = name ?? known.sequences.get(id)?.name;
  if (text === undefined) return h('code', {}, id);
  return known.sequences.has(id)
    ? h('a', { href: `${BASE}sequences/${seg(id)}`, 'data-sequence-link': id }, text)
    : h('span', { 'data-sequence-gone': id }, text);
}

/** A changed field in the page's words; one the page does not know (an older entry's), as the API named it. */
function fieldName(field: string): Child {
  return hasKey(FIELD_NAMES, field) ? FIELD_NAMES[field](t()) : h('code', {}, field);
}

/** What an entry changed: the sequence's or the account's name (the account's from the account list). */
export function auditTarget(entry: AuditEntry, known: AuditKnown): Child {
  if (entry.target.type === 'account') return accountLabel(known.accounts, entry.target.id);
  if (entry.target.type === 'key')
    return h('span', { 'data-key': entry.target.id }, stringIn(entry.details.name) ?? entry.target.id);
  return sequenceRef(entry.target.id, stringIn(entry.details.name), known);
}

/** An entry's details in words: the version, what a pause cancelled, the fields set, the original of a copy. */
export function auditDetails(entry: AuditEntry, known: AuditKnown): Child {
  const { audit: T, sequenceStatus } = t();
  const d = entry.details;
  switch (entry.action) {
    case 'sequence.created': {
      const status = stringIn(d.status);
      return status !== null && hasKey(sequenceStatus, status) ? T.status(sequenceStatus[status]) : null;
    }
    case 'sequence.updated': {
      const version = numberIn(d.version);
      return version === null ? null : T.version(version);
    }
    case 'sequence.duplicated': {
      const original = stringIn(d.copyOf);
      return original === null ? null : [T.copyOf, '“', sequenceRef(original, null, known), '”'];
    }
    case 'sequence.paused':
    case 'sequence.archived': {
      const cancelled = numberIn(d.cancelledSteps);
      return cancelled === null ? null : T.cancelledSteps(cancelled);
    }
    case 'account.updated': {
      const fields = Array.isArray(d.fields)
        ? d.fields.filter((f): f is string => typeof f === 'string')
        : [];
      if (fields.length === 0) return null;
      return [T.fieldsChanged, fields.map((f, i) => [i === 0 ? null : T.fieldJoiner, fieldName(f)])];
    }
    case 'account.deleted':
      return T.accountDeleted(numberIn(d.cancelled) ?? 0, numberIn(d.archivedSequences) ?? 0);
    case 'account.authorized':
      return T.authorized(d.outcome === 'updated', Array.isArray(d.permissions) ? d.permissions.length : 0);
    case 'account.unauthorized':
      return T.unauthorized(d.cause === 'token_refused', numberIn(d.cancelled) ?? 0);
    case 'key.created': {
      const { keys } = t();
      const accounts = stringsIn(d.accounts).map((appId) => accountName(known.accounts, appId));
      const operations = stringsIn(d.operations).map((op) =>
        hasKey(keys.operationNames, op) ? keys.operationNames[op] : op,
      );
      return T.keyScope(accounts.join(T.fieldJoiner), operations.join(T.fieldJoiner));
    }
    default:
      return null;
  }
}
