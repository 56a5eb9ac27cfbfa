// node:console for fwbench: the platform's console global (which writes to
// the host's log). The Console class of Node (writing to given streams) is
// not available.
import { unavailableClass } from './_internal.js';

const Console = unavailableClass('console', 'Console');
const console = globalThis.console;
export default console;
export { Console };
export const { log, info, warn, error, debug, trace, dir, time, timeEnd, timeLog, assert, count, countReset, group, groupEnd, table } = console;
