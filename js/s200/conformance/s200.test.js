// The shared conformance suite (./suite.js) against s200.
import { conformance } from './suite.js';
import { IMPLS } from './impls.js';

conformance(IMPLS.find((i) => i.name === 's200'));
