// node:fs for fwbench: read-only, inside the app's project. Reading files,
// stats, directory listings and real paths work for the project directory
// and its node_modules (src/engine/project/ops.rs checks every path; one
// outside fails with EACCES naming the sandbox rule); writes go to file
// descriptors 1 and 2 only (the server log: pino's destination(1)); every
// other function (writing files, opening descriptors, watching) throws.
// fs.constants holds Linux's values, fs.promises is node:fs/promises.
import { sandboxedModule, unavailableClass, unavailableFunction } from './_internal.js';
import promises from './fs/promises.js';
import {
  access, accessSync, createReadStream, Dirent, exists, existsSync, lstat, lstatSync, readdir,
  readdirSync, readFile, readFileSync, realpath, realpathSync, stat, statSync, Stats, write, writeSync,
} from './fs/_read.js';

const constants = {
  F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_EXCL: 128,
  O_TRUNC: 512, O_APPEND: 1024, O_SYNC: 1052672, O_NONBLOCK: 2048, O_DIRECTORY: 65536, O_NOFOLLOW: 131072,
  S_IFMT: 61440, S_IFREG: 32768, S_IFDIR: 16384, S_IFLNK: 40960, COPYFILE_EXCL: 1,
  COPYFILE_FICLONE: 2, COPYFILE_FICLONE_FORCE: 4,
};
const { F_OK, R_OK, W_OK, X_OK } = constants;
const ReadStream = unavailableClass('fs', 'ReadStream');
const WriteStream = unavailableClass('fs', 'WriteStream');
const Dir = unavailableClass('fs', 'Dir');
const FileReadStream = unavailableClass('fs', 'FileReadStream');
const FileWriteStream = unavailableClass('fs', 'FileWriteStream');
const appendFile = unavailableFunction('fs', 'appendFile');
const appendFileSync = unavailableFunction('fs', 'appendFileSync');
const chmod = unavailableFunction('fs', 'chmod');
const chmodSync = unavailableFunction('fs', 'chmodSync');
const chown = unavailableFunction('fs', 'chown');
const chownSync = unavailableFunction('fs', 'chownSync');
const close = unavailableFunction('fs', 'close');
const closeSync = unavailableFunction('fs', 'closeSync');
const copyFile = unavailableFunction('fs', 'copyFile');
const copyFileSync = unavailableFunction('fs', 'copyFileSync');
const cp = unavailableFunction('fs', 'cp');
const cpSync = unavailableFunction('fs', 'cpSync');
const createWriteStream = unavailableFunction('fs', 'createWriteStream');
const fchmod = unavailableFunction('fs', 'fchmod');
const fchown = unavailableFunction('fs', 'fchown');
const fdatasync = unavailableFunction('fs', 'fdatasync');
const fstat = unavailableFunction('fs', 'fstat');
const fstatSync = unavailableFunction('fs', 'fstatSync');
const fsync = unavailableFunction('fs', 'fsync');
const ftruncate = unavailableFunction('fs', 'ftruncate');
const futimes = unavailableFunction('fs', 'futimes');
const lchown = unavailableFunction('fs', 'lchown');
const link = unavailableFunction('fs', 'link');
const linkSync = unavailableFunction('fs', 'linkSync');
const mkdir = unavailableFunction('fs', 'mkdir');
const mkdirSync = unavailableFunction('fs', 'mkdirSync');
const mkdtemp = unavailableFunction('fs', 'mkdtemp');
const mkdtempSync = unavailableFunction('fs', 'mkdtempSync');
const open = unavailableFunction('fs', 'open');
const openSync = unavailableFunction('fs', 'openSync');
const opendir = unavailableFunction('fs', 'opendir');
const opendirSync = unavailableFunction('fs', 'opendirSync');
const read = unavailableFunction('fs', 'read');
const readSync = unavailableFunction('fs', 'readSync');
const readlink = unavailableFunction('fs', 'readlink');
const readlinkSync = unavailableFunction('fs', 'readlinkSync');
const readv = unavailableFunction('fs', 'readv');
const rename = unavailableFunction('fs', 'rename');
const renameSync = unavailableFunction('fs', 'renameSync');
const rm = unavailableFunction('fs', 'rm');
const rmSync = unavailableFunction('fs', 'rmSync');
const rmdir = unavailableFunction('fs', 'rmdir');
const rmdirSync = unavailableFunction('fs', 'rmdirSync');
const statfs = unavailableFunction('fs', 'statfs');
const symlink = unavailableFunction('fs', 'symlink');
const symlinkSync = unavailableFunction('fs', 'symlinkSync');
const truncate = unavailableFunction('fs', 'truncate');
const truncateSync = unavailableFunction('fs', 'truncateSync');
const unlink = unavailableFunction('fs', 'unlink');
const unlinkSync = unavailableFunction('fs', 'unlinkSync');
const unwatchFile = unavailableFunction('fs', 'unwatchFile');
const utimes = unavailableFunction('fs', 'utimes');
const utimesSync = unavailableFunction('fs', 'utimesSync');
const watch = unavailableFunction('fs', 'watch');
const watchFile = unavailableFunction('fs', 'watchFile');
const writeFile = unavailableFunction('fs', 'writeFile');
const writeFileSync = unavailableFunction('fs', 'writeFileSync');
const writev = unavailableFunction('fs', 'writev');

export default sandboxedModule('fs', {
  constants, promises, F_OK, R_OK, W_OK, X_OK, Stats, Dirent, ReadStream, WriteStream, Dir,
  FileReadStream, FileWriteStream, access, accessSync, appendFile, appendFileSync, chmod,
  chmodSync, chown, chownSync, close, closeSync, copyFile, copyFileSync, cp, cpSync,
  createReadStream, createWriteStream, exists, existsSync, fchmod, fchown, fdatasync, fstat,
  fstatSync, fsync, ftruncate, futimes, lchown, link, linkSync, lstat, lstatSync, mkdir, mkdirSync,
  mkdtemp, mkdtempSync, open, openSync, opendir, opendirSync, read, readSync, readdir, readdirSync,
  readFile, readFileSync, readlink, readlinkSync, readv, realpath, realpathSync, rename,
  renameSync, rm, rmSync, rmdir, rmdirSync, stat, statSync, statfs, symlink, symlinkSync, truncate,
  truncateSync, unlink, unlinkSync, unwatchFile, utimes, utimesSync, watch, watchFile, write,
  writeSync, writeFile, writeFileSync, writev,
});
export {
  constants, promises, F_OK, R_OK, W_OK, X_OK, Stats, Dirent, ReadStream, WriteStream, Dir,
  FileReadStream, FileWriteStream, access, accessSync, appendFile, appendFileSync, chmod,
  chmodSync, chown, chownSync, close, closeSync, copyFile, copyFileSync, cp, cpSync,
  createReadStream, createWriteStream, exists, existsSync, fchmod, fchown, fdatasync, fstat,
  fstatSync, fsync, ftruncate, futimes, lchown, link, linkSync, lstat, lstatSync, mkdir, mkdirSync,
  mkdtemp, mkdtempSync, open, openSync, opendir, opendirSync, read, readSync, readdir, readdirSync,
  readFile, readFileSync, readlink, readlinkSync, readv, realpath, realpathSync, rename,
  renameSync, rm, rmSync, rmdir, rmdirSync, stat, statSync, statfs, symlink, symlinkSync, truncate,
  truncateSync, unlink, unlinkSync, unwatchFile, utimes, utimesSync, watch, watchFile, write,
  writeSync, writeFile, writeFileSync, writev,
};
