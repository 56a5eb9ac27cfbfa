// node:https for fwbench: TLS is not available; fwbench serves plain HTTP on
// 127.0.0.1. The classes exist for instanceof; creating a server or a
// request throws.
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';

const Server = unavailableClass('https', 'Server');
const Agent = unavailableClass('https', 'Agent');
const createServer = unavailableFunction('https', 'createServer');
const request = unavailableFunction('https', 'request');
const get = unavailableFunction('https', 'get');

export default sandboxedModule('https', {
  Server, Agent, createServer, request, get,
});
export {
  Server, Agent, createServer, request, get,
};
