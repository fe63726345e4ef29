/** The anchor of issue 5: a bare Express 5 app answering the same bytes from a constant with res.json. */
import express from 'express';

const body: unknown = JSON.parse(process.argv[2]!);
const app = express();
app.get('/v1/contacts', (_req, res) => void res.json(body));
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
