/**
 * Dropping a folder onto the desktop window: the page accepts file drags, asks the bridge (the preload's
 * webUtils.getPathForFile) for the path, and opens it here or in another window. Events are real DOM-standard
 * Events on a real EventTarget; only the drag's dataTransfer, which Node has no class for, is a plain object.
 */
import { describe, expect, it } from 'vitest';
import { installFolderDrop, type FolderDropHandlers } from './folderDrop';

function dragEvent(type: 'dragover' | 'drop', files: File[], types = files.length ? ['Files'] : ['text/plain']) {
  const event = new Event(type, { cancelable: true });
  const dataTransfer = { types, files, dropEffect: 'none' };
  Object.defineProperty(event, 'dataTransfer', { value: dataTransfer });
  return { event, dataTransfer };
}

function setup(opts: { showsFolder: boolean; paths: Map<File, string> }) {
  const calls: string[] = [];
  const handlers: FolderDropHandlers = {
    pathForFile: (file) => opts.paths.get(file) ?? '',
    showsFolder: () => opts.showsFolder,
    openHere: async (p) => void calls.push(`here ${p}`),
    openInAnotherWindow: async (p) => void calls.push(`other ${p}`),
  };
  const target = new EventTarget();
  const uninstall = installFolderDrop(target, handlers);
  return { target, calls, uninstall };
}

describe('folder drop', () => {
  const folder = new File([], 'project');
  const paths = new Map([[folder, '/home/me/project']]);

  it('accepts a file drag (so the drop fires) and leaves other drags alone', () => {
    const { target } = setup({ showsFolder: false, paths });
    const files = dragEvent('dragover', [folder]);
    target.dispatchEvent(files.event);
    expect(files.event.defaultPrevented).toBe(true);
    expect(files.dataTransfer.dropEffect).toBe('copy');
    const text = dragEvent('dragover', []);
    target.dispatchEvent(text.event);
    expect(text.event.defaultPrevented).toBe(false);
  });

  it('opens the dropped folder in this window when it shows none yet', () => {
    const { target, calls } = setup({ showsFolder: false, paths });
    const drop = dragEvent('drop', [folder]);
    target.dispatchEvent(drop.event);
    expect(drop.event.defaultPrevented).toBe(true);
    expect(calls).toEqual(['here /home/me/project']);
  });

  it('asks for another window when this one already shows a folder', () => {
    const { target, calls } = setup({ showsFolder: true, paths });
    target.dispatchEvent(dragEvent('drop', [folder]).event);
    expect(calls).toEqual(['other /home/me/project']);
  });

  it('ignores a drop with no path on disk, and stops listening once uninstalled', () => {
    const { target, calls, uninstall } = setup({ showsFolder: false, paths });
    target.dispatchEvent(dragEvent('drop', [new File(['made in JS'], 'x.txt')]).event);
    expect(calls).toEqual([]);
    uninstall();
    const drop = dragEvent('drop', [folder]);
    target.dispatchEvent(drop.event);
    expect(drop.event.defaultPrevented).toBe(false);
    expect(calls).toEqual([]);
  });
});
