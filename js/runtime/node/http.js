// node:http for fwbench: Node's server-side HTTP objects, and the bridge that
// lets the host serve node-style apps (express, fastify, a bare
// `(req, res) => ...` listener) without sockets.
//
// - IncomingMessage is a Readable (node:stream) that yields the request
//   body the host already read; `headers` follows Node's rules (names
//   lowercased, set-cookie an array, cookie joined with '; ', other
//   duplicates joined with ', ', duplicates of content-type, host and
//   the other single-valued fields dropped).
// - ServerResponse keeps OutgoingMessage semantics: a header store
//   (setHeader/getHeader/removeHeader/hasHeader/getHeaders/appendHeader),
//   writeHead merging into it, write()/end() with headersSent, finished,
//   writableEnded/writableFinished, 'prefinish', 'finish' and 'close'
//   events, no body for HEAD, 1xx, 204 and 304. Instead of going to a
//   socket, the status, headers and body chunks are collected.
// - createServer()/Server: listen() opens no socket; it registers the
//   server with the host (host.js registerNodeServer) and emits
//   'listening'.
// - runNode(handler, hostRequest, done, failed) runs one request through
//   a listener and calls done({status, headers, body}) once res.end() is
//   called; the host's adapter calls it. dispatchNode is the same as a
//   promise (for tests and tools); serverHandler(server) gives the
//   listener of a Server. They are handed to the adapter (host.js
//   provideNodeBridge) once this module is loaded.
//
// Both constructors are function-style like Node's, so frameworks can call
// `http.ServerResponse.call(this, req)` and `util.inherits` from them.
// Outbound HTTP (request/get/Agent sockets), trailers, 1xx informational
// responses and upgrades are not available and throw.//
// The pieces live in one module each: _http_common.js (tables, header
// validation), _http_socket.js, _http_incoming.js, _http_outgoing.js,
// _http_server.js, _http_dispatch.js (the host's side) and _http_client.js.
import * as host from 'fwbench:///runtime/host.js';
import { METHODS, STATUS_CODES, maxHeaderSize, validateHeaderName, validateHeaderValue } from './_http_common.js';
import { IncomingMessage } from './_http_incoming.js';
import { OutgoingMessage, ServerResponse, kOutHeaders } from './_http_outgoing.js';
import { Server, createServer } from './_http_server.js';
import { dispatchNode, runNode, serverHandler } from './_http_dispatch.js';
import { Agent, globalAgent, ClientRequest, request, get, setMaxIdleHTTPParsers } from './_http_client.js';

export {
  METHODS, STATUS_CODES, maxHeaderSize, validateHeaderName, validateHeaderValue, IncomingMessage,
  OutgoingMessage, ServerResponse, kOutHeaders, Server, createServer, Agent, globalAgent, ClientRequest,
  request, get, setMaxIdleHTTPParsers, serverHandler, dispatchNode,
};

// The host's adapter (js/runtime/serve.js) serves node-style apps through
// these, once any module has imported node:http (express and fastify do at
// import time).
host.provideNodeBridge(Object.freeze({ dispatchNode, runNode, serverHandler }));

const http = {
  METHODS, STATUS_CODES, maxHeaderSize, validateHeaderName, validateHeaderValue, IncomingMessage,
  OutgoingMessage, ServerResponse, Server, createServer, Agent, globalAgent, ClientRequest, request,
  get, setMaxIdleHTTPParsers, serverHandler, dispatchNode,
};
export default http;
