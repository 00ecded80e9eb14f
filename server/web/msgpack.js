// msgpack for the subset protocol v1 uses: nil, booleans, integers, float64, str, bin, arrays
// and maps with string keys. Encodes as msgpack-python's Packer(use_bin_type=True) does (the
// smallest integer form, floats as float64), so the Python codec reads it back byte for byte.

const utf8 = new TextEncoder();
const text = new TextDecoder("utf-8", { fatal: true });

class Writer {
  constructor() {
    this.buf = new Uint8Array(256);
    this.view = new DataView(this.buf.buffer);
    this.pos = 0;
  }

  room(n) {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.buf.subarray(0, this.pos));
    this.buf = bigger;
    this.view = new DataView(bigger.buffer);
  }

  byte(b) {
    this.room(1);
    this.buf[this.pos++] = b;
  }

  head(tag, size, n) {
    this.room(1 + size);
    this.buf[this.pos++] = tag;
    if (size === 1) this.view.setUint8(this.pos, n);
    else if (size === 2) this.view.setUint16(this.pos, n);
    else if (size === 4) this.view.setUint32(this.pos, n);
    this.pos += size;
  }

  bytes(data) {
    this.room(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  int(n) {
    if (n >= 0) {
      if (n < 0x80) this.byte(n);
      else if (n < 0x100) this.head(0xcc, 1, n);
      else if (n < 0x10000) this.head(0xcd, 2, n);
      else if (n < 0x100000000) this.head(0xce, 4, n);
      else {
        this.room(9);
        this.buf[this.pos++] = 0xcf;
        this.view.setBigUint64(this.pos, BigInt(n));
        this.pos += 8;
      }
    } else if (n >= -32) this.byte(n & 0xff);
    else if (n >= -0x80) {
      this.room(2);
      this.buf[this.pos++] = 0xd0;
      this.view.setInt8(this.pos++, n);
    } else if (n >= -0x8000) {
      this.room(3);
      this.buf[this.pos++] = 0xd1;
      this.view.setInt16(this.pos, n);
      this.pos += 2;
    } else if (n >= -0x80000000) {
      this.room(5);
      this.buf[this.pos++] = 0xd2;
      this.view.setInt32(this.pos, n);
      this.pos += 4;
    } else {
      this.room(9);
      this.buf[this.pos++] = 0xd3;
      this.view.setBigInt64(this.pos, BigInt(n));
      this.pos += 8;
    }
  }

  length(n, fix, fixMax, tag8, tag16, tag32) {
    if (n <= fixMax) this.byte(fix | n);
    else if (tag8 !== null && n < 0x100) this.head(tag8, 1, n);
    else if (n < 0x10000) this.head(tag16, 2, n);
    else this.head(tag32, 4, n);
  }

  value(v) {
    if (v === null || v === undefined) this.byte(0xc0);
    else if (v === false) this.byte(0xc2);
    else if (v === true) this.byte(0xc3);
    else if (typeof v === "number") {
      if (Number.isSafeInteger(v)) this.int(v);
      else {
        this.room(9);
        this.buf[this.pos++] = 0xcb;
        this.view.setFloat64(this.pos, v);
        this.pos += 8;
      }
    } else if (typeof v === "bigint") {
      if (v >= 0n) {
        this.room(9);
        this.buf[this.pos++] = 0xcf;
        this.view.setBigUint64(this.pos, v);
      } else {
        this.room(9);
        this.buf[this.pos++] = 0xd3;
        this.view.setBigInt64(this.pos, v);
      }
      this.pos += 8;
    } else if (typeof v === "string") {
      const data = utf8.encode(v);
      this.length(data.length, 0xa0, 31, 0xd9, 0xda, 0xdb);
      this.bytes(data);
    } else if (v instanceof Uint8Array) {
      this.length(v.length, 0, -1, 0xc4, 0xc5, 0xc6);
      this.bytes(v);
    } else if (Array.isArray(v)) {
      this.length(v.length, 0x90, 15, null, 0xdc, 0xdd);
      for (const item of v) this.value(item);
    } else if (typeof v === "object") {
      const keys = Object.keys(v).filter((k) => v[k] !== undefined);
      this.length(keys.length, 0x80, 15, null, 0xde, 0xdf);
      for (const k of keys) {
        this.value(k);
        this.value(v[k]);
      }
    } else throw new TypeError(`msgpack: cannot encode ${typeof v}`);
  }
}

/** The msgpack bytes of `value` (maps keep their keys' insertion order: put `type` first). */
export function encode(value) {
  const w = new Writer();
  w.value(value);
  return w.buf.slice(0, w.pos);
}

class Reader {
  constructor(data) {
    this.buf = data instanceof Uint8Array ? data : new Uint8Array(data);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.pos = 0;
  }

  need(n) {
    if (this.pos + n > this.buf.length) throw new RangeError("msgpack: truncated");
  }

  u(size) {
    this.need(size);
    const p = this.pos;
    this.pos += size;
    if (size === 1) return this.view.getUint8(p);
    if (size === 2) return this.view.getUint16(p);
    if (size === 4) return this.view.getUint32(p);
    return safe(this.view.getBigUint64(p));
  }

  i(size) {
    this.need(size);
    const p = this.pos;
    this.pos += size;
    if (size === 1) return this.view.getInt8(p);
    if (size === 2) return this.view.getInt16(p);
    if (size === 4) return this.view.getInt32(p);
    return safe(this.view.getBigInt64(p));
  }

  str(n) {
    this.need(n);
    const s = text.decode(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }

  bin(n) {
    this.need(n);
    const b = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  array(n) {
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = this.value();
    return out;
  }

  map(n) {
    const out = {};
    for (let i = 0; i < n; i++) {
      const key = this.value();
      if (typeof key !== "string" && typeof key !== "number") {
        throw new TypeError("msgpack: map keys must be strings");
      }
      Object.defineProperty(out, String(key), {
        value: this.value(), enumerable: true, writable: true, configurable: true,
      });
    }
    return out;
  }

  value() {
    this.need(1);
    const b = this.buf[this.pos++];
    if (b < 0x80) return b;
    if (b >= 0xe0) return b - 0x100;
    if (b >= 0xa0 && b <= 0xbf) return this.str(b & 0x1f);
    if (b >= 0x90 && b <= 0x9f) return this.array(b & 0x0f);
    if (b >= 0x80 && b <= 0x8f) return this.map(b & 0x0f);
    switch (b) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return this.bin(this.u(1));
      case 0xc5: return this.bin(this.u(2));
      case 0xc6: return this.bin(this.u(4));
      case 0xca: { this.need(4); const v = this.view.getFloat32(this.pos); this.pos += 4; return v; }
      case 0xcb: { this.need(8); const v = this.view.getFloat64(this.pos); this.pos += 8; return v; }
      case 0xcc: return this.u(1);
      case 0xcd: return this.u(2);
      case 0xce: return this.u(4);
      case 0xcf: return this.u(8);
      case 0xd0: return this.i(1);
      case 0xd1: return this.i(2);
      case 0xd2: return this.i(4);
      case 0xd3: return this.i(8);
      case 0xd9: return this.str(this.u(1));
      case 0xda: return this.str(this.u(2));
      case 0xdb: return this.str(this.u(4));
      case 0xdc: return this.array(this.u(2));
      case 0xdd: return this.array(this.u(4));
      case 0xde: return this.map(this.u(2));
      case 0xdf: return this.map(this.u(4));
      default: throw new TypeError(`msgpack: type 0x${b.toString(16)} is not used by the protocol`);
    }
  }
}

function safe(big) {
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(big) : big;
}

/** The value inside `data` (one msgpack value and nothing after it). */
export function decode(data) {
  const r = new Reader(data);
  const value = r.value();
  if (r.pos !== r.buf.length) throw new RangeError("msgpack: bytes after the value");
  return value;
}
