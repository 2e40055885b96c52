/** Ids of header buttons that a panel gives focus back to when it closes (the panels load on demand). */
export const PREVIEW_BUTTON_ID = 'preview-restore-button';
export const RESTORES_BUTTON_ID = 'restores-button';
