/**
 * The dashboard's icon, drawn once here: a white speech bubble on the dashboard's blue. Writes
 * dashboard/favicon.svg (linked from the page) and dashboard/favicon.ico (the answer to
 * /favicon.ico, which browsers ask for on their own), the .ico holding the same shapes as PNGs.
 * `npx tsx scripts/dashboard-icon.ts` after changing the shapes; the dashboard's browser test
 * checks that the files are what this makes.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const BLUE = '#2357c6';
const WHITE = '#ffffff';
/** In a 32 × 32 square: the tile, the bubble, and the bubble's tail (a triangle). */
const TILE = { x: 0, y: 0, width: 32, height: 32, radius: 7 };
const BUBBLE = { x: 7, y: 8, width: 18, height: 12, radius: 3 };
const TAIL: [number, number][] = [
  [11, 19],
  [11, 25],
  [17, 19],
];

export const ICON_FILES = {
  svg: path.join(__dirname, '..', 'dashboard', 'favicon.svg'),
  ico: path.join(__dirname, '..', 'dashboard', 'favicon.ico'),
};

export function iconSvg(): string {
  const rect = (r: typeof TILE, fill: string) =>
    `<rect x="${r.x}" y="${r.y}" width="${r.width}" height="${r.height}" rx="${r.radius}" fill="${fill}"/>`;
  const tail = `<path d="M${TAIL.map(([x, y]) => `${x} ${y}`).join(' L')} Z" fill="${WHITE}"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">${rect(TILE, BLUE)}${rect(BUBBLE, WHITE)}${tail}</svg>\n`;
}

/** An .ico of PNGs at 16 and 32 pixels (the PNG form of .ico, which every current browser reads). */
export function iconIco(): Buffer {
  const images = [16, 32].map((size) => ({ size, png: png(size, draw(size)) }));
  const head = Buffer.alloc(6 + 16 * images.length);
  head.writeUInt16LE(1, 2);
  head.writeUInt16LE(images.length, 4);
  let offset = head.length;
  images.forEach(({ size, png: data }, i) => {
    const entry = 6 + 16 * i;
    head.writeUInt8(size, entry);
    head.writeUInt8(size, entry + 1);
    head.writeUInt16LE(1, entry + 4);
    head.writeUInt16LE(32, entry + 6);
    head.writeUInt32LE(data.length, entry + 8);
    head.writeUInt32LE(offset, entry + 12);
    offset += data.length;
  });
  return Buffer.concat([head, ...images.map((image) => image.png)]);
}

const inRoundedRect = (r: typeof TILE, x: number, y: number) => {
  const dx = Math.max(r.x + r.radius - x, 0, x - (r.x + r.width - r.radius));
  const dy = Math.max(r.y + r.radius - y, 0, y - (r.y + r.height - r.radius));
  return (
    x >= r.x && x <= r.x + r.width && y >= r.y && y <= r.y + r.height && dx * dx + dy * dy <= r.radius ** 2
  );
};

const inTail = (x: number, y: number) => {
  const side = (i: number) => {
    const [ax, ay] = TAIL[i]!;
    const [bx, by] = TAIL[(i + 1) % 3]!;
    return (bx - ax) * (y - ay) - (by - ay) * (x - ax);
  };
  const sides = [side(0), side(1), side(2)];
  return sides.every((s) => s >= 0) || sides.every((s) => s <= 0);
};

/** RGBA pixels of the icon at `size`, each edge pixel covered in part (16 samples a pixel). */
function draw(size: number): Buffer {
  const pixels = Buffer.alloc(size * size * 4);
  const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const [blue, white] = [rgb(BLUE), rgb(WHITE)];
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let tile = 0;
      let bubble = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const x = ((px + (sx + 0.5) / n) * 32) / size;
          const y = ((py + (sy + 0.5) / n) * 32) / size;
          if (!inRoundedRect(TILE, x, y)) continue;
          tile++;
          if (inRoundedRect(BUBBLE, x, y) || inTail(x, y)) bubble++;
        }
      }
      const at = (py * size + px) * 4;
      const share = tile === 0 ? 0 : bubble / tile;
      for (let c = 0; c < 3; c++) pixels[at + c] = Math.round(blue[c]! + (white[c]! - blue[c]!) * share);
      pixels[at + 3] = Math.round((255 * tile) / (n * n));
    }
  }
  return pixels;
}

function png(size: number, rgba: Buffer): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.writeUInt8(8, 8); // 8 bits a channel
  header.writeUInt8(6, 9); // RGBA
  const rows = Buffer.concat(
    Array.from({ length: size }, (_, y) =>
      Buffer.concat([Buffer.from([0]), rgba.subarray(y * size * 4, (y + 1) * size * 4)]),
    ),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

if (require.main === module) {
  fs.writeFileSync(ICON_FILES.svg, iconSvg());
  fs.writeFileSync(ICON_FILES.ico, iconIco());
  console.log(`wrote ${ICON_FILES.svg} and ${ICON_FILES.ico} (${iconIco().length} bytes)`);
}
