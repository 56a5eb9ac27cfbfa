// scenarios/stream.js: a streamed answer. GET /export answers 16 chunks of
// 1 KiB (16 KiB of text/plain) through each framework's streaming idiom,
// with no content-length (chunked on the wire): a ReadableStream pulled one
// chunk at a time for s200, hono's stream() helper (hono/streaming), a
// ReadableStream answered as a Response by elysia, res.write() per chunk
// then res.end() for express, and a Node Readable (Readable.from over a
// generator) handed to reply.send() for fastify. The chunks' bytes are made
// once, when the scenario loads: the rows measure the streaming machinery
// (a stream, its reader, a write and a flush per chunk), not making text.
// Not in bench's default run: name it (`--only stream`).
// Format: scenarios/README.md.

export const description = 'GET /export streams 16 chunks of 1 KiB as text/plain, in each framework\'s streaming idiom';

export const request = { method: 'GET', path: '/export', headers: {}, body: null };

/** How many chunks, and the size of each. */
const COUNT = 16;
const SIZE = 1024;

/** Chunk i (0-based): a numbered line padded to SIZE bytes, newline last. */
function chunkText(i) {
  const head = `chunk ${String(i + 1).padStart(2, '0')} of ${COUNT}: `;
  return head + 'abcdefghijklmnopqrstuvwxyz'.repeat(40).slice(0, SIZE - head.length - 1) + '\n';
}

const TEXTS = Array.from({ length: COUNT }, (_, i) => chunkText(i));

/** The chunks as bytes, shared by every request (never written to). */
const CHUNKS = TEXTS.map((text) => new TextEncoder().encode(text));

export const expect = {
  status: 200,
  body: TEXTS.join(''),
  contentType: 'text/plain',
  headers: {},
};

const TEXT_PLAIN = 'text/plain; charset=utf-8';

/** A ReadableStream that enqueues one chunk per pull: the fetch-style idiom. */
function chunkStream() {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      controller.enqueue(CHUNKS[next++]);
      if (next === COUNT) controller.close();
    },
  });
}

export const apps = {
  async s200() {
    return s200App(await import('s200'));
  },

  async 's200-light'() {
    return s200App(await import('s200/light'));
  },

  // Also serves hono-patched. hono's stream() helper: a TransformStream
  // whose writer the callback awaits chunk by chunk.
  async hono() {
    const { Hono } = await import('hono');
    const { stream } = await import('hono/streaming');
    const app = new Hono();
    app.get('/export', (c) => {
      c.header('content-type', TEXT_PLAIN);
      return stream(c, async (out) => {
        for (const chunk of CHUNKS) await out.write(chunk);
      });
    });
    return app;
  },

  // res.write() per chunk, then res.end(): node's chunked encoding.
  async express() {
    const { default: express } = await import('express');
    const app = express();
    app.get('/export', (_req, res) => {
      res.type('text/plain');
      for (const chunk of CHUNKS) res.write(chunk);
      res.end();
    });
    return app;
  },

  // A Node Readable as the payload: fastify pipes it to the response.
  async fastify() {
    const { default: Fastify } = await import('fastify');
    const { Readable } = await import('node:stream');
    const app = Fastify();
    app.get('/export', (_request, reply) => {
      reply.type(TEXT_PLAIN).send(Readable.from(chunks()));
    });
    return app;
  },

  // A generator handler: elysia streams what it yields (its own
  // ReadableStream over the generator), one chunk per yield.
  async elysia() {
    const { Elysia } = await import('elysia');
    return new Elysia().get('/export', function* ({ set }) {
      set.headers['content-type'] = TEXT_PLAIN;
      yield* CHUNKS;
    });
  },
};

/** The chunks, one at a time. */
function* chunks() {
  yield* CHUNKS;
}

/** The s200 app; the same code runs on s200 and s200-light. */
function s200App({ createApp, get, send }) {
  const app = createApp();
  get(app, '/export', (ctx) => send(ctx, chunkStream(), { headers: { 'content-type': TEXT_PLAIN } }));
  return app;
}
