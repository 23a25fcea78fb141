import { Router } from 'express';
import { actorOf } from './actor';
import { newMessageId } from '../store/message-id';
import { NotFoundError, ValidationError } from '../errors';
import {
  changeSequenceStatus,
  createSequence,
  pendingSteps,
  updateSequence,
} from '../sequences/manage-sequences';
import { parseSequenceDefinition, type SequenceDefinition } from '../sequences/sequence-schema';
import { duplicateSequence } from '../sequences/duplicate-sequence';
import { removeSequence } from '../sequences/delete-sequence';
import { quietHoursWarnings } from '../sequences/quiet-hours-warnings';
import { templateRuleWarnings, unknownTemplateWarnings } from '../sequences/template-warnings';
import { missingPermissions } from '../accounts/permissions';
import { definitionOf, findSequence, listSequences, type Sequence } from '../store/sequence-store';
import { parseSequenceCursor, sequenceCursor } from './sequence-cursor';
import { resultsOf } from '../sequences/journey-results';
import { scheduleMessages } from '../scheduling/schedule-messages';
import { type IssueDetail, parseInput } from '../validation';
import {
  createStatusSchema,
  SEQUENCE_ACTIONS,
  type SequenceAction,
  SEQUENCE_PAGE_DEFAULT,
  type SequenceDeleted,
  sequenceDuplicateSchema,
  sequenceListQuerySchema,
  type SequenceList,
  type SequenceValid,
  testSendSchema,
} from '../contract';
import { addEnrollmentRoutes } from './enrollment-routes';
import { journeySteps } from '../sequences/plan-path';
import { chooseVariant } from '../sequences/choose-variant';
import { renderStep } from '../sequences/render-step';
import { messageView } from './message-view';
import { sequenceView } from './sequence-view';
import { guardPathParams } from './input-guard';
import { jsonBody } from './json-body';
import { uuidParam } from './uuid-param';
import type { V1Deps } from './v1-deps';

const sequenceId = (raw: string | string[] | undefined): string => uuidParam(raw, 'sequence');

/** A stored sequence's current version as `PUT /v1/sequences/:id` takes it (a null wait or goal left out). */
function requestOf(s: Sequence): Record<string, unknown> {
  const { wait, goal, ...rest } = definitionOf(s);
  return { ...rest, ...(wait === null ? {} : { wait }), ...(goal === null ? {} : { goal }) };
}

/** `/v1/sequences…`: marketing's drip sequences (the admin page calls these too). */
export function createSequenceRouter(deps: V1Deps): Router {
  const router = Router();
  guardPathParams(router, ['id', 'action']);

  const parse = (body: unknown) => {
    const { status: _status, ...definition } = jsonBody(body) as Record<string, unknown>;
    return parseSequenceDefinition(
      definition,
      (appId) => deps.accounts.get(appId)?.windowPolicy,
      (appId) => {
        const account = deps.accounts.get(appId);
        return account ? missingPermissions(account) : [];
      },
    );
  };

  /**
   * What a definition may not do as written (answered, not refused): quiet hours that can push a step past
   * its window, template fields WeChat drops or refuses, template ids the account does not have.
   */
  const warningsOf = async (d: SequenceDefinition) => {
    const account = deps.accounts.get(d.appId);
    return {
      warnings: [
        ...(account ? quietHoursWarnings(d, account) : []),
        ...templateRuleWarnings(d),
        ...(await unknownTemplateWarnings(d, deps.templates)),
      ],
    };
  };

  router.post('/validate', async (req, res) => {
    const definition = parse(req.body);
    res.json({ ok: true, ...(await warningsOf(definition)) } satisfies SequenceValid);
  });

  router.get('/', async (req, res) => {
    const query = parseInput(sequenceListQuerySchema, req.query, 'invalid query', { prefix: 'query' });
    const page = await listSequences(deps.pool, {
      appId: query.appId ?? null,
      limit: query.limit ?? SEQUENCE_PAGE_DEFAULT,
      after: query.cursor === undefined ? null : parseSequenceCursor(query.cursor),
    });
    const list: SequenceList = {
      sequences: page.sequences.map(sequenceView),
      next: page.next && sequenceCursor(page.next),
    };
    res.json(list);
  });

  router.post('/', async (req, res) => {
    const status = createStatusSchema.safeParse(
      (req.body as { status?: unknown } | undefined)?.status ?? 'draft',
    );
    if (!status.success) {
      throw new ValidationError('invalid sequence', [
        {
          path: 'status',
          message: 'must be draft or active',
          rule: { kind: 'one_of', values: ['draft', 'active'] },
        },
      ]);
    }
    const definition = parse(req.body);
    const created = await createSequence(deps.pool, definition, status.data, actorOf(req));
    res.status(201).json({ ...sequenceView(created), ...(await warningsOf(definition)) });
  });

  router.get('/:id', async (req, res) => {
    const id = sequenceId(req.params.id);
    const sequence = await findSequence(deps.pool, id);
    if (!sequence) throw new NotFoundError(`sequence ${id}`);
    res.json({ ...sequenceView(sequence), pendingSteps: await pendingSteps(deps.pool, id) });
  });

  router.put('/:id', async (req, res) => {
    const definition = parse(req.body);
    const updated = await updateSequence(deps.pool, sequenceId(req.params.id), definition, actorOf(req));
    res.json({ ...sequenceView(updated), ...(await warningsOf(definition)) });
  });

  router.get('/:id/results', async (req, res) => {
    const id = sequenceId(req.params.id);
    if (!(await findSequence(deps.pool, id))) throw new NotFoundError(`sequence ${id}`);
    res.json(await resultsOf(deps.pool, id));
  });

  router.post('/:id/test-send', async (req, res) => {
    const id = sequenceId(req.params.id);
    const sequence = await findSequence(deps.pool, id);
    if (!sequence) throw new NotFoundError(`sequence ${id}`);
    const parsed = parseInput(testSendSchema, req.body, 'invalid test send');
    const steps = journeySteps(sequence);
    const step = steps[parsed.stepIndex];
    if (!step) {
      throw new ValidationError('invalid test send', [
        {
          path: 'stepIndex',
          message: `the sequence has ${steps.length} steps (0 to ${steps.length - 1}), numbered across its paths`,
        },
      ]);
    }
    const issues: IssueDetail[] = [];
    // An A/B step is tried with the variant this follower would get.
    const { openid, stepIndex } = parsed;
    const content = chooseVariant(step, { sequenceId: sequence.id, stepIndex, openid });
    const rendered = renderStep(content, stepIndex, parsed.vars ?? {}, issues);
    if (issues.length > 0) throw new ValidationError('invalid test send', issues);
    // Through the normal path (outbox, broker, claim, window check), not part of the sequence's results.
    const [result] = await scheduleMessages(deps, [
      {
        id: newMessageId(new Date()),
        appId: sequence.appId,
        openid: parsed.openid,
        channel: 'custom',
        payload: rendered.message,
        fallback: rendered.fallback,
        fallbackChannel: rendered.fallbackChannel,
        dueAt: new Date(),
        idempotencyKey: null,
        requestHash: null,
        cancelKey: null,
        requestId: req.requestId,
      },
    ]);
    if (!result.ok) throw result.error;
    res.status(201).json(messageView(result.message));
  });

  router.delete('/:id', async (req, res) => {
    const id = sequenceId(req.params.id);
    await removeSequence(deps.pool, id, actorOf(req));
    res.json({ id, deleted: true } satisfies SequenceDeleted);
  });

  // Before `/:id/:action`, which would take `duplicate` for an unknown action.
  router.post('/:id/duplicate', async (req, res) => {
    const id = sequenceId(req.params.id);
    // The body is optional: without one, the copy keeps the original's name.
    const { name } = parseInput(sequenceDuplicateSchema, req.body ?? {}, 'invalid duplicate');
    const copy = await duplicateSequence(
      deps.pool,
      id,
      { name, accountExists: (appId) => deps.accounts.get(appId) !== undefined },
      actorOf(req),
    );
    res.status(201).json(sequenceView(copy));
  });

  addEnrollmentRoutes(router, deps);

  router.post('/:id/:action', async (req, res) => {
    const action = req.params.action as SequenceAction;
    if (!SEQUENCE_ACTIONS.includes(action)) throw new NotFoundError(`action ${req.params.action}`);
    // A draft (a copy among them) or a paused sequence was checked against its account's rules as they
    // were when it was saved: starting it checks it again against the rules now (a window policy changed
    // since, a permission the platform account took back), as a save would, and refuses it the same way.
    if (action === 'activate' || action === 'resume') {
      const current = await findSequence(deps.pool, sequenceId(req.params.id));
      if (current) parse(requestOf(current));
    }
    if (action === 'pause' || action === 'archive') deps.metrics.cancelled.inc({ scope: 'sequence' });
    const { sequence, cancelledSteps } = await changeSequenceStatus(
      deps.pool,
      sequenceId(req.params.id),
      action,
      actorOf(req),
    );
    res.json({ ...sequenceView(sequence), cancelledSteps });
  });

  return router;
}
