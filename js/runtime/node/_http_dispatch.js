// How the host runs one request through a node-style listener (express,
// fastify, a bare (req, res) handler) and collects its response.
import { Buffer } from './buffer.js';
import process from './process.js';
import { HostSocket } from './_http_socket.js';
import { IncomingMessage, kBody } from './_http_incoming.js';
import { ServerResponse, kChunks, kAllStrings, kFinalHeaders, kOnEnd, kOnDestroy } from './_http_outgoing.js';

/** The request listener of a Server: emits 'request' as Node's server does. */
export function serverHandler(server) {
  return (req, res) => server.emit('request', req, res);
}

/** The collected body: one string when every chunk was UTF-8 text, else bytes. */
function collectBody(res) {
  const chunks = res[kChunks];
  if (chunks.length === 0) return '';
  if (res[kAllStrings]) return chunks.length === 1 ? chunks[0] : chunks.join('');
  const bytes = Buffer.concat(chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)));
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Runs one request through a node-style listener.
 *
 * hostRequest = { method, url, headers: [[name, value], ...] (or
 * rawHeaders: [name, value, ...], as the host passes them), body:
 * Uint8Array | null, remoteAddress, remotePort }. Resolves with { status,
 * headers: [[name, value], ...], body: string | Uint8Array } as soon as
 * res.end() has been called; rejects if the handler throws synchronously,
 * if a promise it returns rejects before end(), or if the response is
 * destroyed before end().
 */
export function dispatchNode(handler, hostRequest) {
  return new Promise((resolve, reject) => runNode(handler, hostRequest, resolve, reject));
}

/**
 * dispatchNode with callbacks instead of a promise: `done(response)` once
 * res.end() has been called, or `failed(error)`, at most one of them. The
 * host answers through this: a promise per request, resolved from inside
 * the handler, kept a quarter of the young generation alive past each
 * scavenge (measured with --trace-gc-nvp), promoting it to the old one.
 */
export function runNode(handler, hostRequest, done, failed) {
  let settled = false;
  const resolve = (value) => {
    if (!settled) {
      settled = true;
      done(value);
    }
  };
  const reject = (error) => {
    if (!settled) {
      settled = true;
      failed(error);
    }
  };
  const socket = new HostSocket(hostRequest);
  const req = new IncomingMessage(socket);
  req.method = hostRequest.method;
  req.url = hostRequest.url;
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  req.httpVersion = '1.1';
  let raw = hostRequest.rawHeaders;
  if (raw === undefined) {
    raw = [];
    for (const [name, value] of hostRequest.headers) raw.push(name, value);
  }
  req.rawHeaders = raw;
  req[kBody] = hostRequest.body ?? null;
  req.complete = true;

  const res = new ServerResponse(req);
  res.shouldKeepAlive = true;
  res[kOnEnd] = () => {
    resolve({ status: res.statusCode, headers: res[kFinalHeaders] ?? [], body: collectBody(res) });
  };
  res[kOnDestroy] = (err) => {
    reject(err ?? new Error('the response was destroyed before res.end() was called'));
  };
  res.assignSocket(socket);
  res.on('finish', () => {
    // As Node does once a response is done: drop an unread request body
    // (so 'end' and 'close' reach the request), then close the response.
    if (!req._consuming && !req.readableEnded) req._dump();
    res.detachSocket(socket);
    process.nextTick(() => {
      res._closed = true;
      res.emit('close');
    });
  });

  let returned;
  try {
    returned = handler(req, res);
  } catch (err) {
    reject(err);
    return;
  }
  if (returned && typeof returned.then === 'function') returned.then(undefined, reject);
}
