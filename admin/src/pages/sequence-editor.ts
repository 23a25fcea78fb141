import { ApiError, seg } from '../api.js';
import { h, replace } from '../dom.js';
import { clearErrors, showErrors } from '../editor/field-errors.js';
import { createExitFields } from '../editor/exit-fields.js';
import { createGeneralFields, type GeneralFields } from '../editor/general-fields.js';
import { createGoalFields } from '../editor/goal-fields.js';
import { pathPreview, pathTabs, planDraft } from '../editor/journey-aside.js';
import { createKnownTemplates } from '../editor/known-templates.js';
import { createPathSection, type JourneyContext, type PathSection } from '../editor/path-section.js';
import { createQuietFields } from '../editor/quiet-fields.js';
import { createQuietPreview } from '../editor/quiet-preview.js';
import { zoneOf } from '../format.js';
import { effectiveQuietHours } from '../policy/quiet-hours.js';
import { triggerKind } from '../policy/window-rule.js';
import { t } from '../i18n/index.js';
import { BASE, type AppContext, type PageFactory } from '../router.js';
import type {
  Account,
  ErrorDetail,
  Sequence,
  SequenceBody,
  SequenceValid,
  Step,
  QrCodeView,
  TemplateLibraryView,
  UploadedMediaView,
} from '../types.js';

/** Typing pauses this long before the draft is checked by POST /v1/sequences/validate. */
const VALIDATE_AFTER_MS = 500;

const firstStep: Step = { offsetMs: 0, message: { msgtype: 'text', text: { content: '' } } };

/**
 * Create or edit a sequence. The window timeline and the phone preview follow every keystroke; the API
 * checks the draft as the user types (errors shown on fields already touched) and on save (all errors).
 */
export const sequenceEditorPage: PageFactory = (ctx, params) => {
  const id = params.id ?? null;
  const el = h('section', { class: 'editor' }, h('p', { class: 'muted' }, t().common.loading));
  let dispose: () => void = () => undefined;
  const load = id ? ctx.api.get<Sequence>(`/sequences/${seg(id)}`) : Promise.resolve<Sequence | null>(null);
  Promise.all([ctx.accounts(), load])
    .then(([accounts, sequence]) => {
      dispose = build(ctx, el, accounts, sequence);
    })
    .catch((err: unknown) => replace(el, h('p', { class: 'error' }, String((err as Error).message ?? err))));
  return { title: id ? t().editor.editTitle : t().editor.newTitle, el, dispose: () => dispose() };
};

function build(ctx: AppContext, el: HTMLElement, accounts: Account[], initial: Sequence | null): () => void {
  const { editor: words, common, sequenceStatus, window: windowWords, policyNames } = t();
  const general: GeneralFields = createGeneralFields(accounts, initial, (scene, permanent) =>
    ctx.api.post<QrCodeView>(`/accounts/${seg(general.appId())}/qrcodes`, { scene, permanent }),
  );
  const exits = createExitFields(initial?.exits ?? [], () => changed());
  const quiet = createQuietFields(initial?.quietHours);
  const quietPreview = createQuietPreview();
  const aside = h('aside', { class: 'editor-aside' });
  const summary = h('div', { class: 'save-summary', role: 'status' });
  const form = h('form', { class: 'editor-form', novalidate: true });
  const touched = new Set<Element>();
  let submitted = false;
  let timer = 0;
  let checkNo = 0;

  let selectedPath = 'main';
  const handedOut = new Set<string>();
  // The picker's reads and the preview's share what they learn: a template chosen shows its labels at once.
  const templates = createKnownTemplates(
    (appId, refresh) =>
      ctx.api.get<TemplateLibraryView>(`/accounts/${seg(appId)}/templates${refresh ? '?refresh=true' : ''}`),
    () => drawAside(read().body),
  );
  const journey: JourneyContext = {
    saved: initial?.paths ?? {},
    changed: () => changed(),
    names: () => main?.names() ?? [],
    tools: {
      templates: (refresh) => templates.load(general.appId(), refresh),
      uploadImage: (file) =>
        ctx.api.upload<UploadedMediaView>(`/accounts/${seg(general.appId())}/media`, file),
    },
    freshName(base) {
      const taken = new Set([...journey.names(), ...handedOut, ...Object.keys(journey.saved)]);
      let name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
      handedOut.add(name);
      return name;
    },
  };
  let main: PathSection | null = null;
  main = createPathSection(
    null,
    { steps: initial?.steps.length ? initial.steps : [firstStep], wait: initial?.wait ?? null },
    null,
    journey,
  );
  const goal = createGoalFields(initial?.goal, () => changed());

  /** The draft as the API takes it, and the problems the browser can see on its own (bad JSON, offsets). */
  const read = (): { body: SequenceBody; problems: ErrorDetail[] } => {
    const problems: ErrorDetail[] = [];
    const { steps, wait, paths } = main.read(problems);
    const goalBody = goal.read(problems);
    const body = {
      appId: general.appId(),
      name: general.name(),
      trigger: general.trigger(),
      steps,
      oncePerFollower: general.oncePerFollower(),
      exits: exits.exits(),
      ...(quiet.value() === undefined ? {} : { quietHours: quiet.value() }),
      // A straight sequence stays straight: no wait, no paths.
      ...(wait ? { wait, paths } : {}),
      ...(goalBody ? { goal: goalBody } : {}),
    };
    return { body, problems };
  };

  const visible = (target: HTMLElement) => submitted || [...touched].some((t) => target.contains(t));

  const show = (details: ErrorDetail[]) => {
    const unplaced = showErrors(form, details, visible);
    replace(
      summary,
      submitted && details.length
        ? h(
            'p',
            { class: 'error' },
            common.notSaved(details.length),
            unplaced.map((d) => h('span', { class: 'block' }, `${d.path}: ${d.message}`)),
          )
        : null,
    );
  };

  const drawAside = (body: SequenceBody) => {
    const account = accounts.find((a) => a.appId === body.appId);
    const policy = account?.windowPolicy ?? null;
    // Each path in the window it is planned in (an API event or enrollment opens none: each step's note says what happens to it).
    const plans = planDraft(body, policy);
    const plan = plans.find((p) => p.name === selectedPath) ?? plans[0];
    const zone = zoneOf(accounts, body.appId);
    quiet.sync(account?.quietHours ?? null, zone);
    const quietHours = effectiveQuietHours(body.quietHours, account?.quietHours ?? null);
    // Quiet hours are previewed on the main path, from the trigger.
    quietPreview.update({
      quiet: quietHours,
      zone,
      policy,
      kind: triggerKind(body.trigger),
      steps: plans[0].verdicts.map((v) => ({ offsetMs: v.offsetMs, hasFallback: v.hasFallback })),
    });
    const policyName = account ? policyNames[account.policyName] : windowWords.unknownPolicy;
    const preview = pathPreview(plan, policy, policyName, body.appId, (id) => templates.find(body.appId, id));
    replace(
      aside,
      pathTabs(plans, plan.name, (name) => {
        selectedPath = name;
        drawAside(read().body);
      }),
      ...preview.slice(0, 1),
      quietPreview.el,
      ...preview.slice(1),
    );
  };

  /** Asks the API about the draft; a later check supersedes an earlier one still in flight. */
  const validate = async (): Promise<void> => {
    const { body, problems } = read();
    if (problems.length) return show(problems);
    const no = ++checkNo;
    try {
      const { warnings } = await ctx.api.post<SequenceValid>('/sequences/validate', body);
      if (no !== checkNo) return;
      show([]);
      main.eachCard((card, at) => card.showWarnings(warnings.filter((w) => w.path.startsWith(`${at}.`))));
    } catch (err) {
      if (no === checkNo && err instanceof ApiError && err.details.length) show(err.details);
    }
  };

  function changed(): void {
    drawAside(read().body);
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void validate(), VALIDATE_AFTER_MS);
  }

  const save = async (status: 'draft' | 'active') => {
    submitted = true;
    window.clearTimeout(timer);
    checkNo++;
    const { body, problems } = read();
    if (problems.length) return show(problems);
    buttons.forEach((b) => (b.disabled = true));
    try {
      const saved = initial
        ? await ctx.api.put<Sequence>(`/sequences/${seg(initial.id)}`, body)
        : await ctx.api.post<Sequence>('/sequences', { ...body, status });
      clearErrors(form);
      ctx.notify(words.saved(saved.name, saved.version, sequenceStatus[saved.status]));
      ctx.navigate(`sequences/${seg(saved.id)}`);
    } catch (err) {
      if (err instanceof ApiError && err.details.length) show(err.details);
      else replace(summary, h('p', { class: 'error' }, common.notSavedBecause((err as Error).message)));
      buttons.forEach((b) => (b.disabled = false));
    }
  };

  const buttons = [
    h(
      'button',
      { type: 'submit', class: 'primary', 'data-test': 'save' },
      initial ? words.saveVersion : words.saveDraft,
    ),
    ...(initial
      ? []
      : [
          h(
            'button',
            { type: 'button', class: 'secondary', onclick: () => void save('active') },
            words.saveActivate,
          ),
        ]),
  ];
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void save('draft');
  });
  form.addEventListener('input', (event) => {
    touched.add(event.target as Element);
    changed();
  });
  form.addEventListener('change', () => changed());

  replace(
    form,
    general.el,
    quiet.el,
    main.el,
    goal.el,
    exits.el,
    h('div', { class: 'save-bar' }, summary, h('div', { class: 'actions' }, buttons)),
  );
  replace(
    el,
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, initial ? words.editHeading(initial.name) : words.newTitle),
      h('a', { href: initial ? `${BASE}sequences/${seg(initial.id)}` : BASE }, common.back),
    ),
    initial ? h('p', { class: 'muted small' }, words.versionNote) : null,
    h('div', { class: 'editor-grid' }, form, aside),
  );
  drawAside(read().body);
  return () => window.clearTimeout(timer);
}
