/**
 * Labelling a checkpoint (`retrace label`, the app's "Label" action), and showing labels on messages (`retrace
 * log`, the timeline). Storage: engine/labels.ts.
 */
import type { LabelResult, Message } from '../../shared/model';
import { normalizeLabel, readLabels, writeLabelLocked } from '../engine/labels';
import type { WorkspaceEngine } from '../engine/workspaceEngine';

/** Set (text) or remove (null) the label of a checkpoint named as every command names one. */
export async function labelCheckpoint(
  engine: WorkspaceEngine,
  spec: string,
  text: string | null,
): Promise<LabelResult> {
  const label = text === null ? null : normalizeLabel(text); // bad text fails before any lock is taken
  return engine.write(async () => {
    const target = await engine.resolveCheckpoint(spec);
    await writeLabelLocked(engine, target.hash, label);
    return { ...target, label };
  });
}

/** The messages with `label` set on labelled checkpoints (copies; no git call when none carries a checkpoint). */
export async function withLabels(engine: WorkspaceEngine, messages: Message[]): Promise<Message[]> {
  if (!messages.some((m) => m.hash)) return messages;
  const labels = await readLabels(engine);
  if (labels.size === 0) return messages;
  return messages.map((m) => {
    const label = m.hash ? labels.get(m.hash) : undefined;
    return label ? { ...m, label } : m;
  });
}
