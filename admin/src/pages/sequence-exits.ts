import { describeExit, exitLabel } from '../describe.js';
import { h } from '../dom.js';
import { t } from '../i18n/index.js';
import type { Sequence, SequenceResults } from '../types.js';

/** The exit conditions, and how many enrollments ended early by each (and by unfollowing). */
export function exitsSummary(sequence: Sequence, results: SequenceResults): HTMLElement {
  const counts = Object.entries(results.exited);
  return h(
    'div',
    {},
    h(
      'p',
      { class: 'muted small' },
      sequence.exits.length
        ? t().exits.endsEarlyOn(sequence.exits.map(describeExit).join(' · '))
        : t().exits.none,
    ),
    counts.length
      ? h(
          'ul',
          { class: 'reasons', 'data-test': 'exited' },
          counts.map(([reason, n]) =>
            h('li', { 'data-exit': reason }, h('strong', {}, n), ' ', exitLabel(reason)),
          ),
        )
      : null,
  );
}
