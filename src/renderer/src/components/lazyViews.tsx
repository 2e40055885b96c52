/**
 * Views shown only on demand (a panel opened, blame on, a picture selected) load their code when first shown, so
 * the JavaScript before the first paint stays within its 3 MiB budget (test/app/rendererBundle.test.ts). The diff
 * editor (Monaco) too: it loads once the first view has painted (DiffView.tsx), so the page opens sooner.
 * Show them inside a LazySlot: it contains a view that cannot load.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { connection } from '../bridge';
import { loadWhenConnected } from '../loadWhenConnected';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each view keeps its own props type
type AnyView = ComponentType<any>;

const failed = new Set<() => void>();

/**
 * A view that loads with `load`, again once the connection is back if it was down. React remembers a failed
 * lazy load for good, so a view that failed is made anew by reloadFailedViews() ("Try again" in LazySlot).
 */
function lazyView<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  const make = () =>
    lazy(() =>
      loadWhenConnected(load, connection).then(
        (view) => ({ default: view }),
        (e: unknown) => {
          failed.add(() => (current = make()));
          throw e;
        },
      ),
    );
  let current: LazyExoticComponent<ComponentType<P>> = make();
  const View = (props: P) => {
    const Loaded = current as unknown as AnyView;
    return <Loaded {...props} />;
  };
  return View;
}

export function reloadFailedViews(): void {
  for (const remake of failed) remake();
  failed.clear();
}

export const LazyStoragePanel = lazyView(() => import('./StoragePanel').then((m) => m.StoragePanel));
export const LazyRevertPreview = lazyView(() => import('./RevertPreview').then((m) => m.RevertPreview));
export const LazyBlameView = lazyView(() => import('./BlameView').then((m) => m.BlameView));
export const LazyImageDiff = lazyView(() => import('./ImageDiff').then((m) => m.ImageDiff));
export const LazyBinaryImageDiff = lazyView(() => import('./ImageDiff').then((m) => m.BinaryImageDiff));
export const LazyRestoresPanel = lazyView(() => import('./RestoresPanel').then((m) => m.RestoresPanel));
export const LazyRestorePreview = lazyView(() => import('./RestorePreview').then((m) => m.RestorePreview));
export const LazyFoundSessionsNotice = lazyView(() =>
  import('./FoundSessionsNotice').then((m) => m.FoundSessionsNotice),
);
export const LazyMonacoDiff = lazyView(() => import('./MonacoDiff').then((m) => m.MonacoDiff));
