// Preloaded into a project served by Node, Deno or Bun for bench's runtime
// rows of `--app` (node --import, deno run --preload, bun --preload): the
// project starts as it always does (`app.listen(process.env.PORT)`, PORT
// being 0 so the system picks one), and when its first server listens this
// prints one banner line in `fwbench serve`'s form, which bench reads as
// it reads its own servers'. What the app prints with console.log goes to
// stderr, so the banner is stdout's first line.
import http from 'node:http';
import net from 'node:net';

const runtimeReady = performance.now();
console.log = console.info = console.debug = console.error;
const write = process.stdout.write.bind(process.stdout);
let announced = false;

/** Announces the first server of `Server` that listens. */
function watch(Server) {
  const listen = Server.prototype.listen;
  Server.prototype.listen = function (...args) {
    this.once('listening', () => announce(this));
    return listen.apply(this, args);
  };
}

// Bun's node:http servers do not go through node:net's listen.
watch(net.Server);
if (http.Server.prototype.listen !== net.Server.prototype.listen) watch(http.Server);

function announce(server) {
  const address = server.address();
  if (announced || address === null || typeof address === 'string') return;
  announced = true;
  const runtime = globalThis.Bun
    ? `bun ${Bun.version}`
    : globalThis.Deno
      ? `deno ${Deno.version.deno}`
      : `node ${process.version}`;
  const at = performance.now().toFixed(1);
  write(
    `fwbench-launch serving ${process.argv[1] ?? 'the project'} (project) on ` +
      `http://127.0.0.1:${address.port}/ with 1 worker [${runtime}] · started: ` +
      `runtime ready ${runtimeReady.toFixed(1)} ms, app loaded ${at} ms, banner ${at} ms\n`,
  );
}
