// Stand-in for `ext:deno_net/02_tls.js`, which deno_fetch's HTTP client
// module imports. fwbench has no network, so TLS client keys can never be
// loaded: the one function deno_fetch uses refuses with a clear error.
(function () {
  function loadTlsKeyPair(api) {
    throw new TypeError(`${api} is not available in fwbench: the sandbox has no network`);
  }
  return { loadTlsKeyPair };
})();
