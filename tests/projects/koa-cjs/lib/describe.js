// A CommonJS helper with a cycle back to index-free state: exports grows
// after the require below reads it partially.
exports.kind = 'user';
const shared = require('./shared');
exports.describe = (user) => ({ ...user, kind: exports.kind, tag: shared.tag() });
