/**
 * CORS battery for s200: `import { cors } from 's200/cors'`.
 * @module
 */
export { cors } from './cors.js';
