/**
 * Request ID battery for s200: `import { requestId } from 's200/request-id'`.
 * @module
 */
export { requestId } from './request-id.js';
