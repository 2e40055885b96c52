/**
 * The Content-Security-Policy of the renderer, wherever it is served from (the Electron app protocol and
 * `retrace serve`). Scripts only from the app itself; Monaco needs inline styles, blob: workers and data: fonts.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "worker-src 'self' blob:",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
