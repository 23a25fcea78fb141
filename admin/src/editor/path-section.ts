import { field, h } from '../dom.js';
import { t } from '../i18n/index.js';
import { pathField } from '../policy/journey-plan.js';
import type { ErrorDetail, Step, WaitInput } from '../types.js';
import { createStepCard, type StepCard } from './step-card.js';
import type { AccountTools } from './account-tools.js';
import { createWaitCard, type WaitCard } from './wait-card.js';

/** What the API takes for one path: its steps and the wait that may end it. */
export interface PathBody {
  steps: Step[];
  wait?: WaitInput;
}

/** A path as read: its own body, and the bodies of the paths its wait leads to (and theirs), by name. */
export interface ReadPath extends PathBody {
  readonly paths: Record<string, PathBody>;
}

/** A path's name as the API takes it: letters, digits, `_` or `-`, 1–32, never the main path's. */
const PATH_NAME = /^[A-Za-z0-9_-]{1,32}$/;

/** What the sections of one journey share: the draft's paths as saved, the change callback, fresh names. */
export interface JourneyContext {
  readonly saved: Readonly<Record<string, { steps: readonly Step[]; wait?: WaitInput | null }>>;
  readonly changed: () => void;
  /** A name no section has yet, from `base` (`yes`, `yes2`, …). */
  freshName(base: string): string;
  /** Every section's name now (to find a name given twice). */
  names(): string[];
  /** The sequence's account, for the template picker and image uploads of its steps. */
  readonly tools: AccountTools;
}

/** One path of the journey in the editor: its name, its step cards, its wait, and the paths under it. */
export interface PathSection {
  readonly el: HTMLElement;
  name(): string;
  read(problems: ErrorDetail[]): ReadPath;
  /** Calls `fn` with each step card of this path and the paths under it, and the card's field. */
  eachCard(fn: (card: StepCard, at: string) => void): void;
  /** The names of this path and the paths under it. */
  names(): string[];
}

const emptyStep = (offsetMs: number): Step => ({
  offsetMs,
  message: { msgtype: 'text', text: { content: '' } },
});

/**
 * The section of path `name` (null: the main path), built from `initial`; `branch` says which branch of
 * its parent's wait leads here. Its wait's branches are sections of their own, drawn under the wait.
 */
export function createPathSection(
  name: string | null,
  initial: { steps: readonly Step[]; wait?: WaitInput | null },
  branch: 'yes' | 'no' | null,
  ctx: JourneyContext,
): PathSection {
  const words = t().journey;
  const cards: StepCard[] = [];
  const stepsEl = h('div', { class: 'steps' }, h('div', { class: 'error-slot' }));
  const nameInput = h('input', { type: 'text', name: 'path-name', maxlength: 32, class: 'path-name' });
  nameInput.value = name ?? '';
  const currentName = () => (name === null ? 'main' : nameInput.value.trim());
  const prefix = () => pathField(currentName());

  const removeCard = (card: StepCard) => {
    cards.splice(cards.indexOf(card), 1);
    card.el.remove();
    ctx.changed();
  };
  const addCard = (step: Step) => {
    const card = createStepCard(step, removeCard, name !== null, ctx.tools);
    cards.push(card);
    stepsEl.append(card.el);
  };
  initial.steps.forEach(addCard);

  // Building the section from the saved journey is no change (and the editor is not drawn yet).
  let built = false;
  let wait: WaitCard | null = null;
  let yes: PathSection | null = null;
  let no: PathSection | null = null;
  const waitSlot = h('div', { class: 'wait-slot' });
  const branchesEl = h('div', { class: 'branches' });
  const child = (target: string | null | undefined, which: 'yes' | 'no'): PathSection => {
    const saved = target && Object.hasOwn(ctx.saved, target) ? ctx.saved[target] : null;
    return createPathSection(
      saved ? target! : ctx.freshName(which),
      saved ?? { steps: [emptyStep(0)] },
      which,
      ctx,
    );
  };
  const drawBranches = () =>
    branchesEl.replaceChildren(
      ...[yes, no].flatMap((s) => (s ? [s.el] : [])),
      ...(wait && !no
        ? [h('div', { class: 'branch no end' }, h('span', { class: 'branch-label' }, words.ended))]
        : []),
    );
  const setWait = (w: WaitInput | null) => {
    wait = w ? createWaitCard(w, () => setWait(null), onNoChange) : null;
    yes = w ? child(w.yes, 'yes') : null;
    no = w?.no ? child(w.no, 'no') : null;
    waitSlot.replaceChildren(wait ? wait.el : addWait);
    drawBranches();
    if (built) ctx.changed();
  };
  const onNoChange = (leadsOn: boolean) => {
    no = leadsOn ? child(null, 'no') : null;
    drawBranches();
    ctx.changed();
  };
  const addWait = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-action': 'add-wait',
      onclick: () =>
        setWait({ until: { type: 'message', keyword: '' }, timeoutMs: 86_400_000, yes: '', no: '' }),
    },
    words.addWait,
  );

  const addStep = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-action': 'add-step',
      'data-test': name === null ? 'add-step' : null,
      onclick: () => {
        const last = cards.at(-1)?.read(prefix(), cards.length - 1, []).offsetMs ?? 0;
        addCard(emptyStep(last));
        ctx.changed();
      },
    },
    t().editor.addStep,
  );

  const nameRow = field(words.pathName, nameInput, { hint: words.pathNameHint });
  const head =
    name === null
      ? h('h2', {}, t().editor.steps)
      : h(
          'div',
          { class: 'path-head' },
          h('span', { class: `branch-label ${branch}` }, branch === 'yes' ? words.yesBranch : words.noBranch),
          nameRow,
        );
  const el = h(
    'section',
    {
      class: `path-section${branch ? ` branch ${branch}` : ' main-path'}`,
      'data-path-section': name ?? 'main',
    },
    head,
    h('div', { class: 'error-slot' }),
    stepsEl,
    h('div', { class: 'path-tools' }, addStep),
    waitSlot,
    branchesEl,
  );
  setWait(initial.wait ?? null);
  built = true;

  const section: PathSection = {
    el,
    name: currentName,
    names: () => [currentName(), ...(yes?.names() ?? []), ...(no?.names() ?? [])],
    eachCard(fn) {
      cards.forEach((card, i) => fn(card, `${prefix()}steps.${i}`));
      yes?.eachCard(fn);
      no?.eachCard(fn);
    },
    read(problems) {
      const own = currentName();
      const at = prefix();
      if (name !== null) {
        nameRow.dataset.path = `paths.${own}`;
        if (!PATH_NAME.test(own) || own === 'main')
          problems.push({ path: `paths.${own}`, message: words.pathNameProblem });
        else if (ctx.names().filter((n) => n === own).length > 1)
          problems.push({ path: `paths.${own}`, message: words.pathNameTaken });
      }
      stepsEl.dataset.path = `${at}steps`;
      const steps = cards.map((c, i) => c.read(at, i, problems));
      const paths: Record<string, PathBody> = {};
      for (const s of [yes, no]) {
        if (!s) continue;
        const { paths: deeper, ...body } = s.read(problems);
        paths[s.name()] = body;
        Object.assign(paths, deeper);
      }
      if (!wait) return { steps, paths };
      return {
        steps,
        wait: wait.read(at, yes?.name() ?? '', no ? no.name() : null, problems),
        paths,
      };
    },
  };
  return section;
}
