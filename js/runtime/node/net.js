// node:net for fwbench: isIP/isIPv4/isIPv6 with Node's own patterns. The
// sockets are the host's (hyper), so Socket/Server exist only for
// `instanceof` and inheritance; creating, connecting or listening throws.
import { notAvailable, unavailableClass } from './_internal.js';

const v4Seg = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const v4Str = `(?:${v4Seg}\\.){3}${v4Seg}`;
const IPv4Reg = new RegExp(`^${v4Str}$`);
const v6Seg = '(?:[0-9a-fA-F]{1,4})';
const IPv6Reg = new RegExp('^(?:' +
  `(?:${v6Seg}:){7}(?:${v6Seg}|:)|` +
  `(?:${v6Seg}:){6}(?:${v4Str}|:${v6Seg}|:)|` +
  `(?:${v6Seg}:){5}(?::${v4Str}|(?::${v6Seg}){1,2}|:)|` +
  `(?:${v6Seg}:){4}(?:(?::${v6Seg}){0,1}:${v4Str}|(?::${v6Seg}){1,3}|:)|` +
  `(?:${v6Seg}:){3}(?:(?::${v6Seg}){0,2}:${v4Str}|(?::${v6Seg}){1,4}|:)|` +
  `(?:${v6Seg}:){2}(?:(?::${v6Seg}){0,3}:${v4Str}|(?::${v6Seg}){1,5}|:)|` +
  `(?:${v6Seg}:){1}(?:(?::${v6Seg}){0,4}:${v4Str}|(?::${v6Seg}){1,6}|:)|` +
  `(?::(?:(?::${v6Seg}){0,5}:${v4Str}|(?::${v6Seg}){1,7}|:))` +
')(?:%[0-9a-zA-Z-.:]{1,})?$');

const isIPv4 = (input) => IPv4Reg.test(`${input}`);
const isIPv6 = (input) => IPv6Reg.test(`${input}`);
function isIP(input) {
  if (isIPv4(input)) return 4;
  if (isIPv6(input)) return 6;
  return 0;
}

const Socket = unavailableClass('net', 'Socket');
const Server = unavailableClass('net', 'Server');
const Stream = Socket;
function createServer() {
  throw notAvailable('net', 'net.createServer() (fwbench serves HTTP through its own server; use http.createServer and listen())');
}
function connect() {
  throw notAvailable('net', 'net.connect()');
}

const net = { isIP, isIPv4, isIPv6, Socket, Server, Stream, createServer, connect, createConnection: connect };
export default net;
export { isIP, isIPv4, isIPv6, Socket, Server, Stream, createServer, connect, connect as createConnection };
