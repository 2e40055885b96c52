import type { ReactNode } from 'react';
import type { Message, TokenUsage, ToolCallDetail } from '../../../shared/model';
import { stepMessage, useShownMessage } from '../store/message';
import { formatDateTime } from '../format';
import { readableInput } from '../toolInput';

/**
 * The region named "Message" (UI.md "Message reading"): the selected message in full — role, date and time,
 * its whole text, each tool call with its input, patch and output, the model's thinking (folded), and the
 * model, tokens and cost where the transcript recorded them. It lives under the timeline, so the diff editor
 * keeps its size.
 */
export function MessagePane() {
  const { message, summary, error } = useShownMessage();
  const m = message ?? summary;
  return (
    <section className="message-pane" aria-labelledby="message-heading">
      <div className="pane-title">
        <h2 id="message-heading">Message</h2>
        <span className="message-nav">
          <button type="button" className="quiet" onClick={() => void stepMessage(-1)} disabled={!m}>
            Previous message
          </button>
          <button type="button" className="quiet" onClick={() => void stepMessage(1)} disabled={!m}>
            Next message
          </button>
        </span>
      </div>
      {/* Focusable so the keyboard can scroll a long message. */}
      <div className="message-body" tabIndex={0} role="group" aria-label="Message details">
        {!m && !error && <p className="empty-note">Select a message in the timeline to read it here.</p>}
        {error && (
          <p className="message-error">
            Could not load the message: {error.message} ({error.code})
          </p>
        )}
        {m && <MessageDetails m={m} complete={message !== null} />}
      </div>
    </section>
  );
}

function MessageDetails({ m, complete }: { m: Message; complete: boolean }) {
  const meta = m.meta ?? {};
  const calls = meta.toolCalls ?? [];
  // A tool message's text is a summary of its call; the call itself, shown below, says it all.
  const showText = m.role !== 'tool' || calls.length === 0;
  return (
    <>
      <dl className="message-facts">
        <Fact label="Role">
          {m.role}
          {meta.reasoning && ' (thinking)'}
          {m.hidden && ' (rewound)'}
        </Fact>
        <Fact label="Time">
          <time dateTime={m.ts}>{formatDateTime(m.ts)}</time>
        </Fact>
        {meta.model && <Fact label="Model">{meta.model}</Fact>}
        {meta.usage && <Fact label="Tokens">{formatUsage(meta.usage)}</Fact>}
        {meta.costUsd !== undefined && <Fact label="Cost">${meta.costUsd.toFixed(4)}</Fact>}
        {meta.tool && <Fact label="Tool">{meta.tool}</Fact>}
        {meta.file && <Fact label="File">{meta.file}</Fact>}
      </dl>
      {showText && <pre className="message-text">{m.text}</pre>}
      {meta.thinking && (
        <details className="message-thinking">
          <summary>Thinking</summary>
          <pre>{meta.thinking}</pre>
        </details>
      )}
      {calls.map((c, i) => (
        <ToolCall key={c.id ?? i} call={c} />
      ))}
      {!complete && <p className="empty-note">Loading the details…</p>}
    </>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function ToolCall({ call }: { call: ToolCallDetail }) {
  const status = [call.isError && 'error', call.exitCode !== undefined && `exit code ${call.exitCode}`]
    .filter(Boolean)
    .join(', ');
  return (
    <section className="tool-call" role="group" aria-label={`Tool call ${call.name}`}>
      <h3>
        {call.name}
        {status && <span className={call.isError ? 'tool-status failed' : 'tool-status'}> ({status})</span>}
      </h3>
      {call.input && <Block label="Input" text={readableInput(call.input)} />}
      {call.patch && <Patch text={call.patch} />}
      {call.output && <Block label="Output" text={call.output} />}
    </section>
  );
}

function Block({ label, text }: { label: string; text: string }) {
  return (
    <figure className="tool-block">
      <figcaption>{label}</figcaption>
      <pre aria-label={label}>{text}</pre>
    </figure>
  );
}

/** Diff lines coloured by their first character, as a patch reads. */
function Patch({ text }: { text: string }) {
  return (
    <figure className="tool-block">
      <figcaption>Patch</figcaption>
      <pre className="patch" aria-label="Patch">
        {text.split('\n').map((line, i) => (
          <span key={i} className={lineClass(line)}>
            {line}
            {'\n'}
          </span>
        ))}
      </pre>
    </figure>
  );
}

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('***') || line.startsWith('@@'))
    return 'patch-meta';
  if (line.startsWith('+')) return 'patch-ins';
  if (line.startsWith('-')) return 'patch-del';
  return 'patch-ctx';
}

export function formatUsage(u: TokenUsage): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const parts: string[] = [];
  if (u.input !== undefined) parts.push(`${n(u.input)} in`);
  if (u.output !== undefined) parts.push(`${n(u.output)} out`);
  if (u.cacheRead !== undefined) parts.push(`${n(u.cacheRead)} cache read`);
  if (u.cacheWrite !== undefined) parts.push(`${n(u.cacheWrite)} cache write`);
  if (u.reasoning !== undefined) parts.push(`${n(u.reasoning)} reasoning`);
  if (u.total !== undefined) parts.push(`${n(u.total)} total`);
  return parts.join(' · ');
}
