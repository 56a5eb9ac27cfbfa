const { AsyncLocalStorage } = require('node:async_hooks');
const Koa = require('koa');
const Router = require('@koa/router');
const bodyParser = require('koa-bodyparser');
const { describe } = require('./lib/describe');

const requestContext = new AsyncLocalStorage();
const app = new Koa();
const router = new Router({ prefix: '/api' });
let seq = 0;

app.use(async (ctx, next) => {
  const id = ctx.get('x-request-id') || `req-${++seq}`;
  await requestContext.run({ id }, async () => {
    await next();
    ctx.set('x-request-id', requestContext.getStore().id);
  });
});
app.use(bodyParser());

router.get('/hello', async (ctx) => {
  await new Promise((resolve) => setTimeout(resolve, 1));
  ctx.body = { hello: 'koa', id: requestContext.getStore().id };
});
router.get('/users/:id', (ctx) => {
  ctx.body = describe({ id: Number(ctx.params.id) });
});
router.post('/echo', (ctx) => {
  ctx.body = { got: ctx.request.body, store: requestContext.getStore() };
});
app.use(router.routes()).use(router.allowedMethods());

app.listen(Number(process.env.PORT || 3000));
