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
 * A checkpoint row's "Label" action (beside the row's own button, which cannot hold another): an inline input
 * where Enter saves and Esc cancels; "Remove label" where it has one. Reachable by Tab from the selected row.
 */
export function LabelAction({ message, selected }: { message: Message; selected: boolean }) {
  const editing = useSearch((s) => s.editingLabel === message.id);
  if (!message.hash) return null;
  if (editing) return <LabelEditor message={message} />;
  return (
    <span className={`label-actions${selected ? ' on-selected' : ''}`}>
      <button type="button" tabIndex={selected ? 0 : -1} onClick={() => startLabel(message.id)}>
        Label
      </button>
      {message.label && (
        <button type="button" tabIndex={selected ? 0 : -1} onClick={() => void saveLabel(message.hash!, null)}>
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
