// node:tty for fwbench: there is no terminal. isatty() answers false for every
// descriptor, which is the truth here (stdout and stderr go to the host log);
// the stream classes throw.
import { sandboxedModule, unavailableClass } from './_internal.js';

const isatty = () => false;
const ReadStream = unavailableClass('tty', 'ReadStream');
const WriteStream = unavailableClass('tty', 'WriteStream');

export default sandboxedModule('tty', {
  isatty, ReadStream, WriteStream,
});
export {
  isatty, ReadStream, WriteStream,
};
