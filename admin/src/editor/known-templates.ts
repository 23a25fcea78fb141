import type { LibraryTemplateView, TemplateLibraryView } from '../types.js';

/** Reads an account's template library (`GET /v1/accounts/:appId/templates`); `refresh` asks WeChat again. */
export type LibraryFetch = (appId: string, refresh: boolean) => Promise<TemplateLibraryView>;

/** The template libraries the editor has read, for the template picker and the phone preview. */
export interface KnownTemplates {
  /** Reads the account's library (the picker's source); what it answers is known from then on. */
  load(appId: string, refresh: boolean): Promise<TemplateLibraryView>;
  /**
   * The account's template `templateId`, or undefined while its library is unknown (not read yet, not
   * readable, or without that id). The first call for an account reads its library, once: the preview
   * redraws on every keystroke.
   */
  find(appId: string, templateId: string): LibraryTemplateView | undefined;
}

/** `learned` runs when a library has been read, so that what shows templates can redraw with it. */
export function createKnownTemplates(fetchLibrary: LibraryFetch, learned: () => void): KnownTemplates {
  const libraries = new Map<string, readonly LibraryTemplateView[]>();
  const asked = new Set<string>();
  const load = async (appId: string, refresh: boolean) => {
    asked.add(appId);
    const library = await fetchLibrary(appId, refresh);
    libraries.set(appId, library.templates);
    learned();
    return library;
  };
  return {
    load,
    find(appId, templateId) {
      // A library that could not be read is not asked for again here: the preview shows the keys.
      if (appId && !asked.has(appId)) void load(appId, false).catch(() => undefined);
      return libraries.get(appId)?.find((tpl) => tpl.templateId === templateId);
    },
  };
}
