// node:fs/promises for fwbench: reads inside the app's project (readFile,
// stat, lstat, readdir, realpath, access; see ../fs.js); every other
// function returns a promise rejected with a clear error.
import { notAvailable, sandboxedModule, unavailableClass } from '../_internal.js';
import { promised } from './_read.js';

const { access, lstat, readdir, readFile, realpath, stat } = promised;

const constants = { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 };
const FileHandle = unavailableClass('fs/promises', 'FileHandle');
const appendFile = { async appendFile() { throw notAvailable('fs/promises', 'fs.promises.appendFile()'); } }.appendFile;
const chmod = { async chmod() { throw notAvailable('fs/promises', 'fs.promises.chmod()'); } }.chmod;
const chown = { async chown() { throw notAvailable('fs/promises', 'fs.promises.chown()'); } }.chown;
const copyFile = { async copyFile() { throw notAvailable('fs/promises', 'fs.promises.copyFile()'); } }.copyFile;
const cp = { async cp() { throw notAvailable('fs/promises', 'fs.promises.cp()'); } }.cp;
const lchown = { async lchown() { throw notAvailable('fs/promises', 'fs.promises.lchown()'); } }.lchown;
const link = { async link() { throw notAvailable('fs/promises', 'fs.promises.link()'); } }.link;
const lutimes = { async lutimes() { throw notAvailable('fs/promises', 'fs.promises.lutimes()'); } }.lutimes;
const mkdir = { async mkdir() { throw notAvailable('fs/promises', 'fs.promises.mkdir()'); } }.mkdir;
const mkdtemp = { async mkdtemp() { throw notAvailable('fs/promises', 'fs.promises.mkdtemp()'); } }.mkdtemp;
const open = { async open() { throw notAvailable('fs/promises', 'fs.promises.open()'); } }.open;
const opendir = { async opendir() { throw notAvailable('fs/promises', 'fs.promises.opendir()'); } }.opendir;
const readlink = { async readlink() { throw notAvailable('fs/promises', 'fs.promises.readlink()'); } }.readlink;
const rename = { async rename() { throw notAvailable('fs/promises', 'fs.promises.rename()'); } }.rename;
const rm = { async rm() { throw notAvailable('fs/promises', 'fs.promises.rm()'); } }.rm;
const rmdir = { async rmdir() { throw notAvailable('fs/promises', 'fs.promises.rmdir()'); } }.rmdir;
const statfs = { async statfs() { throw notAvailable('fs/promises', 'fs.promises.statfs()'); } }.statfs;
const symlink = { async symlink() { throw notAvailable('fs/promises', 'fs.promises.symlink()'); } }.symlink;
const truncate = { async truncate() { throw notAvailable('fs/promises', 'fs.promises.truncate()'); } }.truncate;
const unlink = { async unlink() { throw notAvailable('fs/promises', 'fs.promises.unlink()'); } }.unlink;
const utimes = { async utimes() { throw notAvailable('fs/promises', 'fs.promises.utimes()'); } }.utimes;
const watch = { async watch() { throw notAvailable('fs/promises', 'fs.promises.watch()'); } }.watch;
const writeFile = { async writeFile() { throw notAvailable('fs/promises', 'fs.promises.writeFile()'); } }.writeFile;

export default sandboxedModule('fs/promises', {
  constants, FileHandle, access, appendFile, chmod, chown, copyFile, cp, lchown, link, lstat,
  lutimes, mkdir, mkdtemp, open, opendir, readdir, readFile, readlink, realpath, rename, rm, rmdir,
  stat, statfs, symlink, truncate, unlink, utimes, watch, writeFile,
});
export {
  constants, FileHandle, access, appendFile, chmod, chown, copyFile, cp, lchown, link, lstat,
  lutimes, mkdir, mkdtemp, open, opendir, readdir, readFile, readlink, realpath, rename, rm, rmdir,
  stat, statfs, symlink, truncate, unlink, utimes, watch, writeFile,
};
