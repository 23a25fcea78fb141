import { h } from '../dom.js';
import { bestUnit, UNITS, unitMs, type UnitName } from '../format.js';
import { t } from '../i18n/index.js';

/** A duration as marketing types it: a number and a unit (seconds to days), read back in ms. */
export interface DurationInput {
  /** The number's input and the unit's select, side by side. */
  readonly el: HTMLElement;
  readonly input: HTMLInputElement;
  /** The duration in ms; null when blank, `NaN` when not a number of at least 0. */
  ms(): number | null;
}

/** `initialMs` undefined leaves the number blank (an optional duration); `name` names the number's input. */
export function createDurationInput(
  initialMs: number | undefined,
  name: string,
  ...extra: HTMLElement[]
): DurationInput {
  const start = bestUnit(initialMs ?? 0);
  const input = h('input', { type: 'number', min: 0, step: 'any', name, class: 'offset' });
  input.value = initialMs === undefined ? '' : String(start.value);
  const unit = h(
    'select',
    { name: 'unit', 'aria-label': t().editor.unit },
    UNITS.map((u) => h('option', { value: u.name, selected: u.name === start.unit }, t().time.units[u.name])),
  );
  return {
    el: h('span', { class: 'offset-input' }, input, unit, extra),
    input,
    ms() {
      if (input.value.trim() === '') return null;
      const value = Number(input.value);
      if (!Number.isFinite(value) || value < 0) return NaN;
      return Math.round(value * unitMs(unit.value as UnitName));
    },
  };
}
