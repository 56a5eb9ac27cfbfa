import Fastify from 'fastify';
import cookie from '@fastify/cookie';
import jwt from '@fastify/jwt';
import compress from '@fastify/compress';

const app = Fastify({ logger: false });
await app.register(cookie);
await app.register(jwt, { secret: process.env.JWT_SECRET ?? 'dev-secret' });
await app.register(compress, { threshold: 256 });

app.get('/api/hello', async () => ({ hello: 'fastify' }));

app.post('/api/login', {
  schema: {
    body: {
      type: 'object',
      required: ['user'],
      properties: { user: { type: 'string', minLength: 1 } },
    },
  },
}, async (request, reply) => {
  const token = app.jwt.sign({ sub: request.body.user });
  reply.setCookie('session', token, { httpOnly: true, path: '/' });
  return { token };
});

app.get('/api/me', async (request, reply) => {
  try {
    const claims = await request.jwtVerify();
    return { user: claims.sub };
  } catch {
    reply.code(401);
    return { error: 'unauthorized' };
  }
});

app.get('/api/catalog', async () => ({
  items: Array.from({ length: 40 }, (_, i) => ({ id: i, name: `item ${i}`, price: i * 3 })),
}));

await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
