import { Hono } from 'hono';

interface Item {
  id: number;
  name: string;
}

const items: Item[] = [
  { id: 1, name: 'anvil' },
  { id: 2, name: 'bellows' },
];

export const routes = new Hono();

routes.get('/items', (c) => c.json(items));
routes.get('/items/:id', (c) => {
  const item = items.find((i) => i.id === Number(c.req.param('id'))) as Item | undefined;
  return item ? c.json(item) : c.json({ error: 'not found' }, 404);
});
routes.get('/line', (c) => {
  // The line of this statement, from a stack: type stripping keeps lines.
  const line: string = new Error().stack!.split('\n')[1].replace(/.*:(\d+):\d+\)?$/, '$1');
  return c.text(line);
});
