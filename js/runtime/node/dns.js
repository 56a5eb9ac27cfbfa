// node:dns for fwbench: the sandbox resolves no names. lookup() answers for
// IP literals and 'localhost' (127.0.0.1, the only address fwbench serves
// on; fastify looks it up when an app calls listen()); any other lookup and
// every resolve*() fail with a clear error through the callback, as a
// failed lookup does in Node.
import { isIP } from './net.js';
import process from './process.js';
import { notAvailable, sandboxedModule, unavailableClass } from './_internal.js';

function lookupSync(hostname, options) {
  const family = typeof options === 'number' ? options : options?.family ?? 0;
  let addresses;
  const literal = isIP(hostname);
  if (literal) addresses = [{ address: hostname, family: literal }];
  else if (hostname === 'localhost') addresses = [{ address: '127.0.0.1', family: 4 }];
  else throw notAvailable('dns', `dns.lookup('${hostname}') (only IP literals and localhost resolve)`);
  const wanted = family === 'IPv4' ? 4 : family === 'IPv6' ? 6 : family;
  return wanted ? addresses.filter((a) => a.family === wanted) : addresses;
}

function lookup(hostname, options, callback) {
  if (typeof options === 'function') [callback, options] = [options, {}];
  let result;
  try {
    result = lookupSync(hostname, options);
  } catch (err) {
    process.nextTick(callback, err);
    return {};
  }
  if (options?.all) process.nextTick(callback, null, result);
  else if (result.length) process.nextTick(callback, null, result[0].address, result[0].family);
  else process.nextTick(callback, notAvailable('dns', `dns.lookup('${hostname}') for that family`));
  return {};
}

const failing = (name) => ({
  [name](...args) {
    const callback = args.findLast((a) => typeof a === 'function');
    const err = notAvailable('dns', `dns.${name}()`);
    if (!callback) throw err;
    process.nextTick(callback, err);
    return {};
  },
})[name];

const resolve = failing('resolve');
const resolve4 = failing('resolve4');
const resolve6 = failing('resolve6');
const resolveAny = failing('resolveAny');
const resolveCname = failing('resolveCname');
const resolveMx = failing('resolveMx');
const resolveNs = failing('resolveNs');
const resolveTxt = failing('resolveTxt');
const resolveSrv = failing('resolveSrv');
const reverse = failing('reverse');
const lookupService = failing('lookupService');
const Resolver = unavailableClass('dns', 'Resolver');
const getServers = () => [];
const setServers = failing('setServers');
const setDefaultResultOrder = () => {};
const getDefaultResultOrder = () => 'verbatim';

const promises = {
  lookup: async (hostname, options) => {
    const result = lookupSync(hostname, options);
    return options?.all ? result : result[0];
  },
};

export default sandboxedModule('dns', {
  lookup, resolve, resolve4, resolve6, resolveAny, resolveCname, resolveMx, resolveNs, resolveTxt,
  resolveSrv, reverse, lookupService, Resolver, getServers, setServers, setDefaultResultOrder,
  getDefaultResultOrder, promises,
});
export {
  lookup, resolve, resolve4, resolve6, resolveAny, resolveCname, resolveMx, resolveNs, resolveTxt,
  resolveSrv, reverse, lookupService, Resolver, getServers, setServers, setDefaultResultOrder,
  getDefaultResultOrder, promises,
};
