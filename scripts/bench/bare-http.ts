/**
 * The floor: Node's bare http answering the same bytes from a constant buffer.
 *
 * With `--switch-prototypes` it also does the one thing Express does to every request before
 * any routing: give the request and response objects new prototypes (Express's `app.handle`).
 * The difference between the two shows how much of the gap to Express is that alone.
 */
import { IncomingMessage, ServerResponse, createServer } from 'node:http';

const body = Buffer.from(process.argv[2]!);
const switchPrototypes = process.argv.includes('--switch-prototypes');
const requestPrototype: object = Object.create(IncomingMessage.prototype);
const responsePrototype: object = Object.create(ServerResponse.prototype);
const server = createServer((req, res) => {
  if (switchPrototypes) {
    Object.setPrototypeOf(req, requestPrototype);
    Object.setPrototypeOf(res, responsePrototype);
  }
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
