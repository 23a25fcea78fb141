import type { TemplateLibraryView, UploadedMediaView } from '../types.js';

/** What the editor's forms may ask of the sequence's account, through the API. */
export interface AccountTools {
  /** Its WeChat template library (`GET /v1/accounts/:appId/templates`); `refresh` asks WeChat again. */
  templates(refresh: boolean): Promise<TemplateLibraryView>;
  /** Uploads an image to its permanent media (`POST /v1/accounts/:appId/media`), for an image step. */
  uploadImage(file: File): Promise<UploadedMediaView>;
}
