/**
 * The hook server's loopback HTTP side: Claude Code's `"type": "http"` hooks POST their JSON payload to
 * http://127.0.0.1:PORT/hook/claude-code (./httpConfig.ts), and the server runs exactly what
 * `retrace hook claude-code` runs with that payload on stdin. No process starts per call.
 *
 * Answers: 200 `{}` once the call is recorded (or logged as failed, as the command hook does: the hook never
 * fails the agent); 403 without the right secret (nothing runs); 413 for a body over MAX_BODY_BYTES; 404 for
 * any other route or method; 503 while the server is closing (Claude Code treats that as a non-blocking error).
 */
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { CLAUDE_HOOK_ROUTE, SECRET_HEADER, type HttpHookConfig } from './httpConfig';

/** A Write of a large file carries its whole content: generous, but bounded. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export interface HttpHookHandler {
  /** False once the server is closing. */
  accepting(): boolean;
  /** Run one Claude Code hook call with this payload; resolves once it is recorded. */
  run(payload: string): Promise<void>;
}

/** Listen on 127.0.0.1:config.port; rejects (EADDRINUSE …) when the port cannot be had. */
export async function listenHttpHooks(config: HttpHookConfig, handler: HttpHookHandler): Promise<http.Server> {
  const secret = Buffer.from(config.secret);
  const server = http.createServer((req, res) => {
    // A recorded call keeps its connection for the next one (Node's default keep-alive, whose Keep-Alive header
    // tells the client how long): a new TCP connection per tool call cost ~2 ms of the hook's 30 here. A refusal
    // closes it.
    const answer = (status: number, body = ''): void => {
      if (res.headersSent) return;
      res.writeHead(status, { 'content-type': 'application/json', ...(status === 200 ? {} : { connection: 'close' }) });
      res.end(body);
    };
    req.on('error', () => {});
    if (req.method !== 'POST' || req.url !== CLAUDE_HOOK_ROUTE) return answer(404);
    const given = Buffer.from(String(req.headers[SECRET_HEADER.toLowerCase()] ?? ''));
    if (given.length !== secret.length || !timingSafeEqual(given, secret)) return answer(403);
    if (!handler.accepting()) return answer(503);
    // Too large: read the rest without keeping it and answer 413 at its end (answering first and closing would
    // reach the sender as a reset, not as the status). The secret was checked: this is Claude Code, not a stranger.
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
      else chunks.length = 0;
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return answer(413);
      handler.run(Buffer.concat(chunks).toString('utf8')).then(
        () => answer(200, '{}'),
        () => answer(500),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', () => {});
  return server;
}
