/** Small display helpers. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

/**
 * The window's dates, each from one kept Intl.DateTimeFormat: toLocaleString with options builds a new formatter
 * (locale data and all) on each call, and a list opening shows dozens of rows at once. Same text. The first
 * formatter of a page loads the locale data (~40 ms here): warmDateFormats builds them while the window waits
 * for its first answer, instead of inside the frame that shows it.
 */
const formats = {
  /** A timeline row: the time of day. */
  time: { hour: '2-digit', minute: '2-digit', second: '2-digit' },
  /** A session in a list: date and time to the minute. */
  when: { dateStyle: 'medium', timeStyle: 'short' },
  /** The message pane: date and time to the second. */
  dateTime: { dateStyle: 'medium', timeStyle: 'medium' },
} satisfies Record<string, Intl.DateTimeFormatOptions>;

const kept = new Map<keyof typeof formats, Intl.DateTimeFormat>();

function formatter(kind: keyof typeof formats): Intl.DateTimeFormat {
  let f = kept.get(kind);
  if (!f) kept.set(kind, (f = new Intl.DateTimeFormat(undefined, formats[kind])));
  return f;
}

function formatDate(kind: keyof typeof formats, iso: string, invalid: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? invalid : formatter(kind).format(d);
}

/** Time of day of a timeline row ('' for a malformed time). */
export const formatTime = (iso: string): string => formatDate('time', iso, '');
/** Date and time in the user's locale, to the minute ('' for a malformed time). */
export const formatWhen = (iso: string): string => formatDate('when', iso, '');
/** Date and time to the second; a malformed time is shown as it is. */
export const formatDateTime = (iso: string): string => formatDate('dateTime', iso, iso);

/** Build every formatter now (locale data loaded), while nothing else runs. */
export function warmDateFormats(): void {
  for (const kind of Object.keys(formats) as (keyof typeof formats)[]) formatter(kind);
}

export function excerpt(text: string, max = 180): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
