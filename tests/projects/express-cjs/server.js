'use strict';
const path = require('path');
const express = require('express');
const bodyParser = require('body-parser');
const cookieParser = require('cookie-parser');
const helmet = require('helmet');
const compression = require('compression');
const jwt = require('jsonwebtoken');
const logger = require('pino')(require('pino').destination(1));
const items = require(path.join(__dirname, 'data/items.json'));

const SECRET = process.env.JWT_SECRET || 'dev-secret';
const app = express();
app.use(helmet());
app.use(compression({ threshold: 256 }));
app.use(bodyParser.json());
app.use(cookieParser());

app.get('/api/items', (req, res) => {
  res.json(items);
});

app.get('/api/items/:id', (req, res) => {
  const item = items.find((i) => String(i.id) === req.params.id);
  if (!item) return res.status(404).json({ error: 'not found' });
  res.json(item);
});

app.post('/api/login', (req, res) => {
  const { user } = req.body || {};
  if (!user) return res.status(400).json({ error: 'user required' });
  const token = jwt.sign({ sub: user }, SECRET, { algorithm: 'HS256', noTimestamp: true });
  res.cookie('session', token, { httpOnly: true }).json({ token });
});

app.get('/api/me', (req, res) => {
  const token = (req.headers.authorization || '').replace(/^Bearer /, '') || req.cookies.session;
  try {
    const claims = jwt.verify(token, SECRET, { algorithms: ['HS256'] });
    res.json({ user: claims.sub, env: process.env.NODE_ENV });
  } catch (e) {
    res.status(401).json({ error: 'unauthorized' });
  }
});

app.get('/api/catalog', (req, res) => {
  // Large enough to be compressed.
  res.json({ items: Array.from({ length: 40 }, (_, i) => ({ ...items[i % items.length], n: i })) });
});

const port = Number(process.env.PORT || 3000);
app.listen(port, () => logger.info({ port }, 'listening'));
module.exports = app;
