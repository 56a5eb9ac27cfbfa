/**
 * Logger battery for s200: `import { logger } from 's200/logger'`.
 * @module
 */
export { logger, formatLine } from './logger.js';
