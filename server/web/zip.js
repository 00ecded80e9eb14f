// A .zip archive of text files, made in the page (no DOM, no library): every file stored as it
// is (method 0, no compression: .psq records are small), names in UTF-8, as every unzip reads.

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 of `bytes` (the zip's checksum). */
export function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Little-endian fields: [[value, bytes], …] as one array. */
function fields(list) {
  const out = new Uint8Array(list.reduce((n, [, size]) => n + size, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const [value, size] of list) {
    if (size === 4) view.setUint32(at, value, true);
    else view.setUint16(at, value, true);
    at += size;
  }
  return out;
}

/** A zip of `files` ([{name, text}]): its bytes. */
export function zip(files) {
  const utf8 = new TextEncoder();
  const parts = [];
  const central = [];
  let offset = 0;
  for (const file of files) {
    const name = utf8.encode(file.name);
    const data = utf8.encode(file.text);
    const crc = crc32(data);
    // version 2.0, flag 0x800 (UTF-8 names), stored, time 00:00, date 1980-01-01
    const common = [[20, 2], [0x800, 2], [0, 2], [0, 2], [0x21, 2], [crc, 4], [data.length, 4], [data.length, 4], [name.length, 2]];
    const local = fields([[0x04034b50, 4], ...common, [0, 2]]);
    parts.push(local, name, data);
    central.push(fields([[0x02014b50, 4], [20, 2], ...common, [0, 2], [0, 2], [0, 2], [0, 2], [0, 4], [offset, 4]]), name);
    offset += local.length + name.length + data.length;
  }
  const size = central.reduce((n, part) => n + part.length, 0);
  const end = fields([[0x06054b50, 4], [0, 2], [0, 2], [files.length, 2], [files.length, 2], [size, 4], [offset, 4], [0, 2]]);
  const all = [...parts, ...central, end];
  const out = new Uint8Array(all.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of all) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
