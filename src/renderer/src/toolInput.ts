/**
 * A tool call's input as the message view shows it. The importers give arguments as indented JSON, where a
 * long multi-line string (a sub-agent's prompt, a file's content) is one line of `\n` escapes: when the input is
 * an object holding such a string, each field reads as `name: value`, a multi-line value as an indented block
 * under its name, and any other value as its JSON. Anything else (a shell command, a cut text) as it is.
 */
export function readableInput(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return text;
  const fields = Object.entries(value as Record<string, unknown>);
  if (!fields.some(([, v]) => typeof v === 'string' && v.includes('\n'))) return text;
  return fields
    .map(([name, v]) => {
      if (typeof v === 'string' && v.includes('\n'))
        return `${name}:\n${v
          .split('\n')
          .map((l) => (l === '' ? '' : `  ${l}`))
          .join('\n')}`;
      return `${name}: ${typeof v === 'string' ? v : JSON.stringify(v, null, 2)}`;
    })
    .join('\n');
}
