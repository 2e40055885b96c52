/**
 * Views shown only on demand (a panel opened, blame on, a picture selected) load their code when first shown, so
 * the JavaScript before the first paint stays within its 3 MiB budget (test/app/rendererBundle.test.ts). The diff
 * editor (Monaco) too: it loads once the first view has painted (DiffView.tsx), so the page opens sooner.
 */
import { lazy } from 'react';

export const LazyStoragePanel = lazy(() => import('./StoragePanel').then((m) => ({ default: m.StoragePanel })));
export const LazyRevertPreview = lazy(() => import('./RevertPreview').then((m) => ({ default: m.RevertPreview })));
export const LazyBlameView = lazy(() => import('./BlameView').then((m) => ({ default: m.BlameView })));
export const LazyImageDiff = lazy(() => import('./ImageDiff').then((m) => ({ default: m.ImageDiff })));
export const LazyBinaryImageDiff = lazy(() => import('./ImageDiff').then((m) => ({ default: m.BinaryImageDiff })));
export const LazyRestoresPanel = lazy(() => import('./RestoresPanel').then((m) => ({ default: m.RestoresPanel })));
export const LazyRestorePreview = lazy(() => import('./RestorePreview').then((m) => ({ default: m.RestorePreview })));
export const LazyFoundSessionsNotice = lazy(() =>
  import('./FoundSessionsNotice').then((m) => ({ default: m.FoundSessionsNotice })),
);
export const LazyMonacoDiff = lazy(() => import('./MonacoDiff').then((m) => ({ default: m.MonacoDiff })));
