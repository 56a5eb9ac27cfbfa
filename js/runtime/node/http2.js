// node:http2 for fwbench: HTTP/2 is not available. @hono/node-server and
// fastify read Http2ServerRequest and constants at import time, so those
// exist (no request is ever an Http2ServerRequest here); creating a server
// or connecting throws.
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';

const constants = {
  NGHTTP2_CANCEL: 8, HTTP2_HEADER_STATUS: ':status', HTTP2_HEADER_METHOD: ':method',
  HTTP2_HEADER_AUTHORITY: ':authority', HTTP2_HEADER_SCHEME: ':scheme', HTTP2_HEADER_PATH: ':path',
  HTTP2_HEADER_CONTENT_TYPE: 'content-type', HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
  HTTP_STATUS_OK: 200, HTTP_STATUS_NOT_FOUND: 404, HTTP_STATUS_INTERNAL_SERVER_ERROR: 500,
};
const sensitiveHeaders = Symbol('nodejs.http2.sensitiveHeaders');
const Http2ServerRequest = unavailableClass('http2', 'Http2ServerRequest');
const Http2ServerResponse = unavailableClass('http2', 'Http2ServerResponse');
const Http2Session = unavailableClass('http2', 'Http2Session');
const ServerHttp2Session = unavailableClass('http2', 'ServerHttp2Session');
const ClientHttp2Session = unavailableClass('http2', 'ClientHttp2Session');
const Http2Stream = unavailableClass('http2', 'Http2Stream');
const ServerHttp2Stream = unavailableClass('http2', 'ServerHttp2Stream');
const ClientHttp2Stream = unavailableClass('http2', 'ClientHttp2Stream');
const createServer = unavailableFunction('http2', 'createServer');
const createSecureServer = unavailableFunction('http2', 'createSecureServer');
const connect = unavailableFunction('http2', 'connect');
const getDefaultSettings = unavailableFunction('http2', 'getDefaultSettings');
const getPackedSettings = unavailableFunction('http2', 'getPackedSettings');
const getUnpackedSettings = unavailableFunction('http2', 'getUnpackedSettings');

export default sandboxedModule('http2', {
  constants, sensitiveHeaders, Http2ServerRequest, Http2ServerResponse, Http2Session,
  ServerHttp2Session, ClientHttp2Session, Http2Stream, ServerHttp2Stream, ClientHttp2Stream,
  createServer, createSecureServer, connect, getDefaultSettings, getPackedSettings,
  getUnpackedSettings,
});
export {
  constants, sensitiveHeaders, Http2ServerRequest, Http2ServerResponse, Http2Session,
  ServerHttp2Session, ClientHttp2Session, Http2Stream, ServerHttp2Stream, ClientHttp2Stream,
  createServer, createSecureServer, connect, getDefaultSettings, getPackedSettings,
  getUnpackedSettings,
};
