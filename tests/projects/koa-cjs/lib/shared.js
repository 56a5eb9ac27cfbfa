const describe = require('./describe');
// A cycle: describe.js is still loading, so only `kind` is there yet.
const kindAtLoad = describe.kind;
exports.tag = () => `${kindAtLoad}:${typeof describe.describe}`;
