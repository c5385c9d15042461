// How the JS API reads its arguments and reports mistakes in them, shared by attention.js and the
// GPT-2 module (gpt2.js): plain Errors that name the argument and show the value as given.


// A mistake in the caller's input. It prints as a plain Error; the subclass only lets argument()
// tell these messages from an exception the input itself threw while being read.
export class InputError extends Error {}
InputError.prototype.name = 'Error';

export function fail(message) {
  throw new InputError(message);
}

// Converts one argument. An exception thrown while reading it (a getter or Proxy trap of the
// caller's) becomes an Error that names the argument, with the original as its cause.
export function argument(name, convert) {
  try {
    return convert();
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new Error(`${name} could not be read: reading it threw ${describe(error)} (this Error's cause)`, { cause: error });
  }
}

// The options object of a method; undefined stands for {}.
export function optionsOf(value, method, example) {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object') {
    fail(`${method} takes an options object such as ${example} (got ${describe(value)})`);
  }
  return value;
}

export const withDefault = (value, fallback) => (value === undefined ? fallback : value);

// "1 row", "3 rows"
export const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;

// The name of a typed array's kind ('Float32Array', ...) from its internal slot; undefined for
// anything else, a DataView and a Proxy included. Right for typed arrays from other realms too.
export const typedArrayKind = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;

// How a value is shown in a message: as given (1e-50, -0, a BigInt with its n), never throwing.
export function describe(value) {
  try {
    switch (typeof value) {
      case 'string': return JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value);
      case 'number': return Object.is(value, -0) ? '-0' : String(value);
      case 'bigint': return `the BigInt ${value}n`;
      case 'symbol': return 'a symbol';
      case 'function': return 'a function';
      case 'undefined': case 'boolean': return String(value);
    }
    if (value === null) return 'null';
    if (Array.isArray(value)) return 'an array';
    const kind = typedArrayKind.call(value);
    if (kind) return article(kind);
    if (ArrayBuffer.isView(value)) return 'a DataView';
    if (value instanceof Error) return article(String(value.name));
    return 'an object';
  } catch {
    return 'a value that cannot be inspected'; // a revoked Proxy, say
  }
}

// "a Float32Array", "an Int8Array", "a TypeError"
const article = (noun) => `${/^[AEIO]/.test(noun) ? 'an' : 'a'} ${noun}`;

export function toBoolean(value, name) {
  if (typeof value !== 'boolean') fail(`${name} must be true or false (got ${describe(value)})`);
  return value;
}

// A binding's { error } result as a thrown Error; anything else as it is.
export function unwrap(raw) {
  if (raw.error !== undefined) throw new Error(raw.error);
  return raw;
}
