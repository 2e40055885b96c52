import { useEffect, useRef, useState } from 'react';
import type { Message } from '../../../shared/model';
import { cancelLabel, saveLabel, startLabel, useSearch } from '../store/search';

/** The label a checkpoint row shows. */
export function LabelBadge({ label }: { label: string | undefined }) {
  if (!label) return null;
  return (
    <span className="label-badge" title={`Label: ${label}`}>
      {label}
    </span>
  );
}

/**
 * The selected checkpoint's "Label" action (laid over its row; the row itself is one button and holds no other):
 * an inline input where Enter saves and Esc cancels, and "Remove label" where it has one. Tab from the selected
 * row reaches it.
 */
export function LabelAction({ message }: { message: Message }) {
  const editing = useSearch((s) => s.editingLabel === message.id);
  if (!message.hash) return null;
  if (editing) return <LabelEditor message={message} />;
  return (
    <span className="label-actions">
      <button type="button" onClick={() => startLabel(message.id)}>
        Label
      </button>
      {message.label && (
        <button type="button" onClick={() => void saveLabel(message.hash!, null)}>
          Remove label
        </button>
      )}
    </span>
  );
}

function LabelEditor({ message }: { message: Message }) {
  const [text, setText] = useState(message.label ?? '');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  return (
    <span className="label-editor">
      <input
        ref={input}
        type="text"
        aria-label="Label text"
        maxLength={200}
        value={text}
        placeholder="Label, then Enter"
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void saveLabel(message.hash!, text);
          } else if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            cancelLabel();
          }
        }}
        onBlur={cancelLabel}
      />
    </span>
  );
}
