// node:url for fwbench: the WHATWG URL and URLSearchParams of the platform,
// and Node's legacy url.parse/format/resolve from the `url` npm package
// (Node's own legacy algorithm, bundled as fwbench:///vendor/polyfills/url.js,
// with its query parsing done by node:querystring as in Node).
// fileURLToPath/pathToFileURL are the POSIX forms.
import legacy from 'fwbench:///vendor/polyfills/url.js';
import { resolve as resolvePath } from './path.js';

const { URL, URLSearchParams } = globalThis;
const { parse, format: legacyFormat, resolve, resolveObject, Url } = legacy;

function invalid(code, message) {
  const err = new TypeError(message);
  err.code = code;
  return err;
}

function fileURLToPath(path) {
  const url = typeof path === 'string' ? new URL(path) : path;
  if (!(url instanceof URL)) throw invalid('ERR_INVALID_ARG_TYPE', 'The "path" argument must be of type string or an instance of URL');
  if (url.protocol !== 'file:') throw invalid('ERR_INVALID_URL_SCHEME', 'The URL must be of scheme file');
  if (url.hostname !== '') throw invalid('ERR_INVALID_FILE_URL_HOST', 'File URL host must be "localhost" or empty on linux');
  const pathname = url.pathname;
  for (let n = 0; n < pathname.length; n++) {
    if (pathname[n] === '%' && pathname[n + 1] === '2' && (pathname[n + 2] === 'f' || pathname[n + 2] === 'F')) {
      throw invalid('ERR_INVALID_FILE_URL_PATH', 'File URL path must not include encoded / characters');
    }
  }
  return decodeURIComponent(pathname);
}

function pathToFileURL(filepath) {
  let resolved = resolvePath(filepath);
  if (filepath.endsWith('/') && !resolved.endsWith('/')) resolved += '/';
  const url = new URL('file://');
  url.pathname = resolved.replace(/%/g, '%25').replace(/\\/g, '%5C').replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/\t/g, '%09');
  return url;
}

/** url.format(URL | legacy object | string[, options]). */
function format(urlObject, options) {
  if (urlObject instanceof URL) {
    const opts = { auth: true, fragment: true, search: true, unicode: false, ...options };
    const copy = new URL(urlObject.href);
    if (!opts.auth) {
      copy.username = '';
      copy.password = '';
    }
    if (!opts.fragment) copy.hash = '';
    if (!opts.search) copy.search = '';
    return copy.href;
  }
  return legacyFormat(urlObject);
}

function domainToASCII(domain) {
  try {
    return new URL(`http://${domain}`).hostname;
  } catch {
    return '';
  }
}

function urlToHttpOptions(url) {
  const options = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    hash: url.hash,
    search: url.search,
    pathname: url.pathname,
    path: `${url.pathname || ''}${url.search || ''}`,
    href: url.href,
  };
  if (url.port !== '') options.port = Number(url.port);
  if (url.username || url.password) {
    options.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  }
  return options;
}

const url = {
  URL, URLSearchParams, parse, format, resolve, resolveObject, Url,
  fileURLToPath, pathToFileURL, domainToASCII, urlToHttpOptions,
};
export default url;
export {
  URL, URLSearchParams, parse, format, resolve, resolveObject, Url,
  fileURLToPath, pathToFileURL, domainToASCII, urlToHttpOptions,
};
