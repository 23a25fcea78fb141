import { createKnownTemplates, type LibraryFetch } from '../../../admin/src/editor/known-templates';
import type { LibraryTemplateView, TemplateLibraryView } from '../../../src/contract';

const COURSE: LibraryTemplateView = {
  templateId: 'TPL_COURSE_REMINDER',
  title: '课程提醒',
  content: '课程名称：{{thing1.DATA}}',
  fields: [{ key: 'thing1', label: '课程名称' }],
};
const libraryOf = (appId: string, templates: LibraryTemplateView[]): TemplateLibraryView => ({
  appId,
  ok: true,
  fetchedAt: '2026-11-29T08:00:00.000Z',
  templates,
});

/** A fetch that answers `answer` for every account and records the reads. */
function aFetch(answer: (appId: string) => Promise<TemplateLibraryView>) {
  const reads: { appId: string; refresh: boolean }[] = [];
  const fetchLibrary: LibraryFetch = (appId, refresh) => {
    reads.push({ appId, refresh });
    return answer(appId);
  };
  return { reads, fetchLibrary };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('createKnownTemplates', () => {
  it('reads an account’s library the first time a template of it is looked up, once, then finds its templates', async () => {
    const { reads, fetchLibrary } = aFetch(async (appId) => libraryOf(appId, [COURSE]));
    const learned = jest.fn();
    const known = createKnownTemplates(fetchLibrary, learned);

    expect(known.find('wx1', COURSE.templateId)).toBeUndefined();
    expect(known.find('wx1', COURSE.templateId)).toBeUndefined();
    await settled();

    expect(reads).toEqual([{ appId: 'wx1', refresh: false }]);
    expect(learned).toHaveBeenCalledTimes(1);
    expect(known.find('wx1', COURSE.templateId)).toEqual(COURSE);
    expect(known.find('wx1', 'TPL_UNKNOWN')).toBeUndefined();
    expect(reads).toHaveLength(1);
  });

  it('keeps each account’s library apart, and asks nothing for a sequence without an account yet', async () => {
    const { reads, fetchLibrary } = aFetch(async (appId) =>
      libraryOf(appId, appId === 'wx1' ? [COURSE] : []),
    );
    const known = createKnownTemplates(fetchLibrary, () => undefined);

    known.find('', COURSE.templateId);
    known.find('wx1', COURSE.templateId);
    known.find('wx2', COURSE.templateId);
    await settled();

    expect(reads.map((r) => r.appId)).toEqual(['wx1', 'wx2']);
    expect(known.find('wx1', COURSE.templateId)).toEqual(COURSE);
    expect(known.find('wx2', COURSE.templateId)).toBeUndefined();
  });

  it('when the library cannot be read, finds nothing and does not ask again on the next lookup; the picker’s load does', async () => {
    let fail = true;
    const { reads, fetchLibrary } = aFetch(async (appId) => {
      if (fail) throw new Error('The service answered 503.');
      return libraryOf(appId, [COURSE]);
    });
    const learned = jest.fn();
    const known = createKnownTemplates(fetchLibrary, learned);

    expect(known.find('wx1', COURSE.templateId)).toBeUndefined();
    await settled();
    expect(known.find('wx1', COURSE.templateId)).toBeUndefined();
    expect(reads).toHaveLength(1);
    expect(learned).not.toHaveBeenCalled();

    fail = false;
    await expect(known.load('wx1', true)).resolves.toMatchObject({ ok: true });
    expect(reads).toEqual([
      { appId: 'wx1', refresh: false },
      { appId: 'wx1', refresh: true },
    ]);
    expect(learned).toHaveBeenCalledTimes(1);
    expect(known.find('wx1', COURSE.templateId)).toEqual(COURSE);
  });
});
