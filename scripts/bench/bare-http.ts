/** The floor: Node's bare http answering the same bytes from a constant buffer. */
import { createServer } from 'node:http';

const body = Buffer.from(process.argv[2]!);
const server = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
});
