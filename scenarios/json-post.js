// scenarios/json-post.js: an API taking a JSON body. POST /orders sends a
// ~1.2 KB order (a customer, six line items, a shipping address, a
// payment, notes: the shape a shop's checkout posts); every framework
// parses it with its own body handling (s200 and hono: the request's
// json(), express: express.json(), fastify: its built-in JSON parser,
// elysia: its parsed `body`), checks one field (the currency: anything
// but EUR is a 422) and answers 201 with a JSON summary derived from the
// items (their count, quantity and total), not an echo.
// Not in bench's default run: name it (`--only json-post`).
// Format: scenarios/README.md.

export const description =
  'POST /orders parses a ~1.2 KB JSON order, checks its currency and answers 201 with a summary';

/** The order every request posts. */
const order = {
  id: 'ord_7Hq2Lm9xKp',
  createdAt: '2026-11-28T14:03:27.512Z',
  currency: 'EUR',
  customer: { id: 'cus_40219', email: 'ada.lovelace@example.com', name: 'Ada Lovelace', tier: 'gold' },
  items: [
    { sku: 'BK-1843-NOTES', title: 'Notes on the Analytical Engine (facsimile)', quantity: 1, unitPrice: 4900 },
    { sku: 'PN-0042-FTN', title: 'Fountain pen, fine nib, graphite', quantity: 2, unitPrice: 3250 },
    { sku: 'NB-A5-DOT', title: 'A5 notebook, dotted, 192 pages', quantity: 3, unitPrice: 1490 },
    { sku: 'IK-50ML-BLU', title: 'Ink bottle, 50 ml, blue-black', quantity: 2, unitPrice: 890 },
    { sku: 'RL-30CM-BRS', title: 'Brass ruler, 30 cm', quantity: 1, unitPrice: 1750 },
    { sku: 'PC-LTHR-BRN', title: 'Leather pencil case, brown', quantity: 1, unitPrice: 2900 },
  ],
  shipping: {
    method: 'express',
    address: { line1: "12 St James's Square", line2: 'Flat 3', city: 'London', postalCode: 'SW1Y 4JH', country: 'GB' },
  },
  payment: { method: 'card', brand: 'visa', last4: '4242', captured: false },
  coupon: 'WINTER10',
  notes: 'Please leave the parcel with the concierge if nobody answers; the buzzer for flat 3 is broken.',
  metadata: { channel: 'web', campaign: 'newsletter-2026-11', abTest: 'checkout-v3' },
};

export const request = {
  method: 'POST',
  path: '/orders',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(order),
};

export const expect = {
  status: 201,
  body: JSON.stringify(summarize(order)),
  // express and fastify add "; charset=utf-8"; parameters are ignored.
  contentType: 'application/json',
  headers: {},
};

/** The one field checked: an order in another currency is refused. */
const CURRENCY = 'EUR';

/** What a refused order answers (422), in every framework. */
const REFUSED = { error: 'unsupported currency' };

/**
 * The answer to an accepted order: derived from its items, the same plain
 * code in every app (the framework's part is the parse and the response).
 */
function summarize(order) {
  let quantity = 0;
  let total = 0;
  for (const item of order.items) {
    quantity += item.quantity;
    total += item.quantity * item.unitPrice;
  }
  return { id: order.id, status: 'accepted', lines: order.items.length, quantity, total, currency: order.currency };
}

export const apps = {
  async s200() {
    return s200App(await import('s200'));
  },

  async 's200-light'() {
    return s200App(await import('s200/light'));
  },

  // Also serves hono-patched. c.req.json() parses (and caches) the body.
  async hono() {
    const { Hono } = await import('hono');
    const app = new Hono();
    app.post('/orders', async (c) => {
      const order = await c.req.json();
      if (order.currency !== CURRENCY) return c.json(REFUSED, 422);
      return c.json(summarize(order), 201);
    });
    return app;
  },

  // express.json() on the route: it reads the stream and parses into req.body.
  async express() {
    const { default: express } = await import('express');
    const app = express();
    app.post('/orders', express.json(), (req, res) => {
      const order = req.body;
      if (order.currency !== CURRENCY) return res.status(422).json(REFUSED);
      res.status(201).json(summarize(order));
    });
    return app;
  },

  // fastify's built-in application/json content-type parser fills request.body.
  async fastify() {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    app.post('/orders', async (request, reply) => {
      const order = request.body;
      if (order.currency !== CURRENCY) return reply.code(422).send(REFUSED);
      reply.code(201);
      return summarize(order);
    });
    return app;
  },

  // elysia parses a JSON body by its content-type before the handler.
  async elysia() {
    const { Elysia } = await import('elysia');
    return new Elysia().post('/orders', ({ body, set }) => {
      if (body.currency !== CURRENCY) {
        set.status = 422;
        return REFUSED;
      }
      set.status = 201;
      return summarize(body);
    });
  },
};

/** The s200 app; the same code runs on s200 and s200-light. */
function s200App({ createApp, post, json }) {
  const app = createApp();
  post(app, '/orders', async (ctx) => {
    const order = await ctx.req.json();
    if (order.currency !== CURRENCY) return json(ctx, REFUSED, 422);
    return json(ctx, summarize(order), 201);
  });
  return app;
}
