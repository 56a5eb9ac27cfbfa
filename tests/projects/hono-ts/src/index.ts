import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { etag } from 'hono/etag';
import { routes } from './routes.ts';
import type { Greeting } from './types.ts';

const app = new Hono();
app.use('*', cors({ origin: 'https://example.com' }));
app.use('/api/*', etag());
app.route('/api', routes);
app.get('/', (c) => {
  const greeting: Greeting = { hello: 'hono', runtime: typeof process };
  return c.json(greeting);
});

const port: number = Number(process.env.PORT ?? 3000);
serve({ fetch: app.fetch, port }, (info) => {
  console.log(`listening on ${info.port}`);
});
