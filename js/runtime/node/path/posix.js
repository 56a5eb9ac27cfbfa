// node:path/posix for fwbench: the same module as node:path (POSIX only).
export * from '../path.js';
export { default } from '../path.js';
