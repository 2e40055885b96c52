/**
 * Where a view whose code loads on demand (lazyViews.tsx) is shown: its fallback while the code loads, and, if it
 * cannot load, a message with "Try again" in its place. Without this, one chunk that failed to load (a server
 * gone for good, a rebuilt app) would unmount the whole window: React has no other way to contain a thrown error.
 */
import { Component, Suspense, type ReactNode } from 'react';
import { reloadFailedViews } from './lazyViews';

interface Props {
  fallback: ReactNode;
  children: ReactNode;
}

export function LazySlot({ fallback, children }: Props) {
  return (
    <LoadBoundary>
      <Suspense fallback={fallback}>{children}</Suspense>
    </LoadBoundary>
  );
}

// A class: React catches render errors only in a class component's getDerivedStateFromError.
class LoadBoundary extends Component<{ children: ReactNode }, { failed: string | null }> {
  override state = { failed: null as string | null };

  static getDerivedStateFromError(e: unknown) {
    return { failed: e instanceof Error ? e.message : String(e) };
  }

  private readonly tryAgain = () => {
    reloadFailedViews();
    this.setState({ failed: null });
  };

  override render() {
    if (this.state.failed === null) return this.props.children;
    return (
      <div role="alert" className="diff-notice">
        This part of the window could not load: {this.state.failed}{' '}
        <button type="button" onClick={this.tryAgain}>
          Try again
        </button>
      </div>
    );
  }
}
