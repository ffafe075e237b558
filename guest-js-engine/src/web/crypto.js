// crypto: getRandomValues, randomUUID and crypto.subtle's digests and
// HMAC. Spec: https://w3c.github.io/webcrypto/
// WPT: WebCryptoAPI/ (the table in the README; expectations in tests/wpt/)
//
// Randomness is the host's generator for the run (seeded per run: the
// README's "Durable runs"); digests and HMAC are RustCrypto's (natives
// `digest`, `hmac`, in web/crypto.rs). Every other algorithm is refused
// with a NotSupportedError.
(function (host) {
  'use strict';
  const { randomBytes, digest, hmac } = host.natives;
  const { domString, brand } = host.idl;
  const { bytesOf } = host.encoding;
  const DOMExceptionCtor = host.DOMException;
  const TypeErrorCtor = TypeError;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferCtor = ArrayBuffer;
  const isView = ArrayBuffer.isView;
  const PromiseCtor = Promise;
  const PromiseResolve = Promise.resolve.bind(Promise);
  const PromiseReject = Promise.reject.bind(Promise);
  const ObjectFreeze = Object.freeze;
  const ArrayIsArray = Array.isArray;
  const ObjectKeys = Object.keys;
  const getPrototypeOf = Object.getPrototypeOf;
  const sliceBuffer = ArrayBuffer.prototype.slice;
  const INTEGER_ARRAYS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array,
    Int32Array, Uint32Array, BigInt64Array, BigUint64Array].map((C) => C.prototype);
  const MAX_RANDOM_BYTES = 65536;
  const DIGESTS = { 'SHA-1': 512, 'SHA-256': 512, 'SHA-384': 1024, 'SHA-512': 1024 };
  const USAGES = ['encrypt', 'decrypt', 'sign', 'verify', 'deriveKey', 'deriveBits', 'wrapKey', 'unwrapKey'];

  // Constructors that scripts may not call: the objects come from `crypto`.
  let constructing = false;
  function illegal(name) {
    if (!constructing) throw new TypeErrorCtor(`Illegal constructor: ${name} objects come from crypto`);
  }

  function getRandomValues(array) {
    if (!isView(array) || !INTEGER_ARRAYS.includes(getPrototypeOf(array))) {
      throw new DOMExceptionCtor('crypto.getRandomValues takes an integer typed array', 'TypeMismatchError');
    }
    if (array.byteLength > MAX_RANDOM_BYTES) {
      throw new DOMExceptionCtor(
        `crypto.getRandomValues fills at most ${MAX_RANDOM_BYTES} bytes at once (got ${array.byteLength})`,
        'QuotaExceededError');
    }
    const bytes = new Uint8ArrayCtor(randomBytes(array.byteLength));
    new Uint8ArrayCtor(array.buffer, array.byteOffset, array.byteLength).set(bytes);
    return array;
  }

  function randomUUID() {
    const b = new Uint8ArrayCtor(randomBytes(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex = '';
    for (let i = 0; i < 16; i++) {
      hex += (b[i] < 16 ? '0' : '') + b[i].toString(16);
      if (i === 3 || i === 5 || i === 7 || i === 9) hex += '-';
    }
    return hex;
  }

  // A copy of a BufferSource's bytes (none when its buffer is detached).
  function copyOf(data, what) {
    if (!isView(data) && !(data instanceof ArrayBufferCtor)) {
      throw new TypeErrorCtor(`${what} takes an ArrayBuffer or an ArrayBufferView`);
    }
    const buffer = isView(data) ? data.buffer : data;
    if (buffer.detached) return new Uint8ArrayCtor(0);
    return new Uint8ArrayCtor(bytesOf(data, what));
  }

  // The algorithm's name, normalised against `known` (case-insensitively),
  // or a NotSupportedError.
  function algorithmName(algorithm, known, what) {
    let name;
    if (typeof algorithm === 'string') name = algorithm;
    else if (algorithm !== null && typeof algorithm === 'object') {
      // Read once: a getter runs once, as Web IDL's dictionary conversion does.
      const given = algorithm.name;
      if (given === undefined) throw new TypeErrorCtor(`${what}: the algorithm has no name`);
      name = domString(given);
    } else {
      throw new TypeErrorCtor(`${what}: the algorithm must be a string or an object`);
    }
    const upper = name.toUpperCase();
    for (const candidate of known) if (candidate.toUpperCase() === upper) return candidate;
    throw new DOMExceptionCtor(`${what}: the algorithm ${name} is not supported`, 'NotSupportedError');
  }

  const hashName = (hash, what) => algorithmName(hash, ObjectKeys(DIGESTS), what);

  // A method's result: what `body` returns, or its exception, as a promise.
  function promised(body) {
    try {
      return PromiseResolve(body());
    } catch (e) {
      return PromiseReject(e);
    }
  }

  class CryptoKey {
    #type; #extractable; #algorithm; #usages; #secret;
    constructor(type, extractable, algorithm, usages, secret) {
      illegal('CryptoKey');
      this.#type = type;
      this.#extractable = extractable;
      this.#algorithm = ObjectFreeze(algorithm);
      this.#usages = ObjectFreeze(usages);
      this.#secret = secret;
    }
    get type() { return this.#type; }
    get extractable() { return this.#extractable; }
    get algorithm() { return this.#algorithm; }
    get usages() { return this.#usages; }
    static secretOf(key, what) {
      if (key === null || typeof key !== 'object' || !(#secret in key)) throw new TypeErrorCtor(`${what} takes a CryptoKey`);
      return key.#secret;
    }
  }
  const secretOf = CryptoKey.secretOf;
  delete CryptoKey.secretOf;

  function hmacKey(secret, hash, extractable, usages, what) {
    if (!ArrayIsArray(usages)) throw new TypeErrorCtor(`${what}: the key usages must be an array`);
    const list = usages.map(domString);
    for (const usage of list) {
      if (!USAGES.includes(usage)) throw new TypeErrorCtor(`${what}: ${usage} is not a key usage`);
      if (usage !== 'sign' && usage !== 'verify') {
        throw new DOMExceptionCtor(`${what}: an HMAC key cannot be used to ${usage}`, 'SyntaxError');
      }
    }
    if (list.length === 0) throw new DOMExceptionCtor(`${what}: an HMAC key needs a usage`, 'SyntaxError');
    constructing = true;
    try {
      const algorithm = { name: 'HMAC', hash: { name: hash }, length: secret.length * 8 };
      return new CryptoKey('secret', !!extractable, algorithm, list, secret);
    } finally {
      constructing = false;
    }
  }

  function usableFor(key, usage, what) {
    const secret = secretOf(key, what);
    if (!key.usages.includes(usage)) {
      throw new DOMExceptionCtor(`${what}: the key's usages do not include ${usage}`, 'InvalidAccessError');
    }
    return secret;
  }

  class SubtleCrypto {
    constructor() { illegal('SubtleCrypto'); }

    digest(algorithm, data) {
      return promised(() => {
        const name = algorithmName(algorithm, ObjectKeys(DIGESTS), 'crypto.subtle.digest');
        return digest(name, copyOf(data, 'crypto.subtle.digest'));
      });
    }

    importKey(format, keyData, algorithm, extractable, keyUsages) {
      return promised(() => {
        const what = 'crypto.subtle.importKey';
        if (format !== 'raw') throw new DOMExceptionCtor(`${what}: the format ${format} is not supported`, 'NotSupportedError');
        const secret = copyOf(keyData, what);
        algorithmName(algorithm, ['HMAC'], what);
        const hash = hashName(algorithm.hash, what);
        if (secret.length === 0) throw new DOMExceptionCtor(`${what}: an HMAC key cannot be empty`, 'DataError');
        return hmacKey(secret, hash, extractable, keyUsages, what);
      });
    }

    generateKey(algorithm, extractable, keyUsages) {
      return promised(() => {
        const what = 'crypto.subtle.generateKey';
        algorithmName(algorithm, ['HMAC'], what);
        const hash = hashName(algorithm.hash, what);
        const bits = algorithm.length === undefined ? DIGESTS[hash] : Number(algorithm.length);
        if (!(bits > 0 && bits % 8 === 0 && bits <= MAX_RANDOM_BYTES * 8)) {
          throw new DOMExceptionCtor(`${what}: an HMAC key length must be a positive multiple of 8 bits`, 'OperationError');
        }
        return hmacKey(new Uint8ArrayCtor(randomBytes(bits / 8)), hash, extractable, keyUsages, what);
      });
    }

    exportKey(format, key) {
      return promised(() => {
        const what = 'crypto.subtle.exportKey';
        const secret = secretOf(key, what);
        if (format !== 'raw') throw new DOMExceptionCtor(`${what}: the format ${format} is not supported`, 'NotSupportedError');
        if (!key.extractable) throw new DOMExceptionCtor(`${what}: the key is not extractable`, 'InvalidAccessError');
        return sliceBuffer.call(secret.buffer, 0);
      });
    }

    sign(algorithm, key, data) {
      return promised(() => {
        const what = 'crypto.subtle.sign';
        algorithmName(algorithm, ['HMAC'], what);
        const secret = usableFor(key, 'sign', what);
        return hmac(key.algorithm.hash.name, secret, copyOf(data, what));
      });
    }

    verify(algorithm, key, signature, data) {
      return promised(() => {
        const what = 'crypto.subtle.verify';
        algorithmName(algorithm, ['HMAC'], what);
        const given = copyOf(signature, what);
        const bytes = copyOf(data, what);
        const secret = usableFor(key, 'verify', what);
        const expected = new Uint8ArrayCtor(hmac(key.algorithm.hash.name, secret, bytes));
        // Constant time in the tag's length: no early exit on a mismatch.
        let difference = expected.length ^ given.length;
        for (let i = 0; i < expected.length; i++) difference |= expected[i] ^ (given[i] | 0);
        return difference === 0;
      });
    }
  }

  class Crypto {
    #subtle;
    constructor() {
      illegal('Crypto');
      this.#subtle = new SubtleCrypto();
    }
    get subtle() { return this.#subtle; }
    getRandomValues(array) { return getRandomValues(array); }
    randomUUID() { return randomUUID(); }
  }

  constructing = true;
  const crypto = new Crypto();
  constructing = false;

  return {
    crypto,
    Crypto: brand(Crypto, 'Crypto'),
    SubtleCrypto: brand(SubtleCrypto, 'SubtleCrypto'),
    CryptoKey: brand(CryptoKey, 'CryptoKey'),
  };
})
