import type { AgentName } from '../../../shared/model';
import { AGENT_LABELS } from '../store/sessions';

/** Which agent recorded a session: a small labelled badge, coloured per agent (styles.css, "Sessions"). */
export function AgentBadge({ agent }: { agent: AgentName }) {
  return <span className={`agent-badge agent-${agent}`}>{AGENT_LABELS[agent]}</span>;
}
