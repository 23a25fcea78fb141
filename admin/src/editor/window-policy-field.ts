import { field, h } from '../dom.js';
import { bestUnit, UNITS, unitMs, type UnitName } from '../format.js';
import { t } from '../i18n/index.js';
import type { InteractionKind, WindowPolicy, WindowRule } from '../types.js';

const KINDS: readonly InteractionKind[] = ['message', 'subscribe', 'scan', 'click'];
const PRESETS = ['official', 'legacy-48h', 'none'] as const;
type Preset = (typeof PRESETS)[number];
type Rules = Record<InteractionKind, WindowRule>;

/** What the API takes as `windowPolicy`: a preset's name or a rule per interaction kind. */
export type WindowPolicyInput = Preset | Rules;

export interface WindowPolicyWords {
  readonly label: string;
  readonly presets: Record<Preset | 'custom', string>;
  readonly ruleFor: Record<InteractionKind, string>;
  readonly ruleCount: string;
  readonly ruleWithin: string;
}

/** Rules offered when switching to custom with nothing to start from: 48 h, as the legacy table. */
const START: WindowRule = { count: 5, windowMs: 48 * 3_600_000 };

/**
 * An account's window policy: a preset, or custom rules (messages within a duration) for each
 * interaction kind. Custom rules start from the account's current ones, so a tweak starts from what is.
 */
export function windowPolicyField(
  initial: { name: string; rules: WindowPolicy } | null,
  words: WindowPolicyWords,
): { el: HTMLElement; value(): WindowPolicyInput } {
  const choice = h(
    'select',
    { name: 'windowPolicy' },
    [...PRESETS, 'custom' as const].map((p) =>
      h('option', { value: p, selected: p === (initial?.name ?? 'official') }, words.presets[p]),
    ),
  );
  const rows = KINDS.map((kind) => ruleRow(kind, initial?.rules?.[kind] ?? START, words));
  const custom = h(
    'div',
    { class: 'custom-rules' },
    rows.map((r) => r.el),
  );
  const sync = () => (custom.hidden = choice.value !== 'custom');
  choice.addEventListener('change', sync);
  sync();
  const el = h(
    'fieldset',
    { class: 'window-policy', 'data-path': 'windowPolicy' },
    field(words.label, choice),
    custom,
  );
  return {
    el,
    value() {
      if (choice.value !== 'custom') return choice.value as Preset;
      return Object.fromEntries(KINDS.map((k, i) => [k, rows[i].value()])) as Rules;
    },
  };
}

function ruleRow(
  kind: InteractionKind,
  rule: WindowRule,
  words: WindowPolicyWords,
): { el: HTMLElement; value(): WindowRule } {
  const count = h('input', { type: 'number', name: `${kind}.count`, min: 1, max: 1000, step: 1 });
  count.value = String(rule.count);
  const span = bestUnit(rule.windowMs);
  const amount = h('input', { type: 'number', name: `${kind}.window`, min: 1, step: 1 });
  amount.value = String(span.value);
  const unit = h(
    'select',
    { name: `${kind}.unit` },
    UNITS.map((u) => h('option', { value: u.name, selected: u.name === span.unit }, t().time.units[u.name])),
  );
  const el = h(
    'div',
    { class: 'rule-row', 'data-path': `windowPolicy.${kind}` },
    h('span', { class: 'label' }, words.ruleFor[kind]),
    count,
    h('span', {}, words.ruleCount, ' ', words.ruleWithin),
    amount,
    unit,
  );
  return {
    el,
    value: () => ({
      count: Number(count.value),
      windowMs: Math.round(Number(amount.value) * unitMs(unit.value as UnitName)),
    }),
  };
}
