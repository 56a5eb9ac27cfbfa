// node:http's shared pieces (Node's _http_common.js): the method and status
// tables and header-name/value validation. Part of the node:http shim
// (http.js re-exports it).
import { nodeError } from './_internal.js';

export const METHODS = [
  'ACL', 'BIND', 'CHECKOUT', 'CONNECT', 'COPY', 'DELETE', 'GET', 'HEAD', 'LINK', 'LOCK',
  'M-SEARCH', 'MERGE', 'MKACTIVITY', 'MKCALENDAR', 'MKCOL', 'MOVE', 'NOTIFY', 'OPTIONS', 'PATCH',
  'POST', 'PROPFIND', 'PROPPATCH', 'PURGE', 'PUT', 'QUERY', 'REBIND', 'REPORT', 'SEARCH', 'SOURCE',
  'SUBSCRIBE', 'TRACE', 'UNBIND', 'UNLINK', 'UNLOCK', 'UNSUBSCRIBE',
];

export const STATUS_CODES = {
  100: 'Continue', 101: 'Switching Protocols', 102: 'Processing', 103: 'Early Hints',
  200: 'OK', 201: 'Created', 202: 'Accepted', 203: 'Non-Authoritative Information',
  204: 'No Content', 205: 'Reset Content', 206: 'Partial Content', 207: 'Multi-Status',
  208: 'Already Reported', 226: 'IM Used', 300: 'Multiple Choices', 301: 'Moved Permanently',
  302: 'Found', 303: 'See Other', 304: 'Not Modified', 305: 'Use Proxy', 307: 'Temporary Redirect',
  308: 'Permanent Redirect', 400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required',
  403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable',
  407: 'Proxy Authentication Required', 408: 'Request Timeout', 409: 'Conflict', 410: 'Gone',
  411: 'Length Required', 412: 'Precondition Failed', 413: 'Payload Too Large', 414: 'URI Too Long',
  415: 'Unsupported Media Type', 416: 'Range Not Satisfiable', 417: 'Expectation Failed',
  418: "I'm a Teapot", 421: 'Misdirected Request', 422: 'Unprocessable Entity', 423: 'Locked',
  424: 'Failed Dependency', 425: 'Too Early', 426: 'Upgrade Required', 428: 'Precondition Required',
  429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons', 500: 'Internal Server Error', 501: 'Not Implemented',
  502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported', 506: 'Variant Also Negotiates', 507: 'Insufficient Storage',
  508: 'Loop Detected', 509: 'Bandwidth Limit Exceeded', 510: 'Not Extended',
  511: 'Network Authentication Required',
};

export const maxHeaderSize = 16384;

// ---------------------------------------------------------------------------
// Header validation (Node's _http_common checkIsHttpToken / checkInvalidHeaderChar)

const tokenRe = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
export const invalidHeaderCharRe = /[^\t\x20-\x7e\x80-\xff]/;

export function validateHeaderName(name, label = 'Header name') {
  if (typeof name !== 'string' || !name || !tokenRe.test(name)) {
    throw nodeError('ERR_INVALID_HTTP_TOKEN', `${label} must be a valid HTTP token ["${name}"]`, TypeError);
  }
}

export function validateHeaderValue(name, value) {
  if (value === undefined) {
    throw nodeError('ERR_HTTP_INVALID_HEADER_VALUE', `Invalid value "${value}" for header "${name}"`, TypeError);
  }
  if (invalidHeaderCharRe.test(String(value))) {
    throw nodeError('ERR_INVALID_CHAR', `Invalid character in header content ["${name}"]`, TypeError);
  }
}

export const headersSentError = (what) =>
  nodeError('ERR_HTTP_HEADERS_SENT', `Cannot ${what} headers after they are sent to the client`);
