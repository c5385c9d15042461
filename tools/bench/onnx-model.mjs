// Writes the ONNX models the benchmark runs in onnxruntime-web, as protobuf bytes built here
// (no opaque binary is committed). Only the few fields these graphs need are encoded.
// Field numbers are those of onnx.proto (ModelProto, GraphProto, NodeProto, AttributeProto,
// ValueInfoProto, TypeProto, TensorShapeProto).

const FLOAT = 1; // TensorProto.DataType.FLOAT
const ATTR_FLOAT = 1, ATTR_INT = 2; // AttributeProto.AttributeType

function varint(n) {
  const out = [];
  let v = BigInt.asUintN(64, BigInt(n)); // int64: negatives as two's complement
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, n) => [...key(field, 0), ...varint(n)];
const bytes = (field, data) => [...key(field, 2), ...varint(data.length), ...data];
const str = (field, s) => bytes(field, [...new TextEncoder().encode(s)]);
const msg = (field, parts) => bytes(field, parts.flat());
const f32 = (field, x) => [...key(field, 5), ...new Uint8Array(Float32Array.of(x).buffer)];

// A float tensor with the given shape (numbers are fixed sizes).
const valueInfo = (field, name, shape) => msg(field, [
  str(1, name),
  msg(2, [msg(1, [int(1, FLOAT), msg(2, shape.map((d) => msg(1, [int(1, d)])))])]),
]);

function attribute(name, value) {
  return Number.isInteger(value.i)
    ? msg(5, [str(1, name), int(3, value.i), int(20, ATTR_INT)])
    : msg(5, [str(1, name), f32(2, value.f), int(20, ATTR_FLOAT)]);
}

function node(opType, inputs, outputs, attributes = {}) {
  return msg(1, [
    ...inputs.map((s) => str(1, s)),
    ...outputs.map((s) => str(2, s)),
    str(3, `${opType}_${outputs[0]}`),
    str(4, opType),
    ...Object.entries(attributes).map(([name, value]) => attribute(name, value)),
  ]);
}

function model(nodes, inputs, outputs, opset) {
  const graph = msg(7, [...nodes, str(2, 'attention'), ...inputs, ...outputs]);
  return Uint8Array.from([
    ...int(1, 10), // ir_version 10
    ...str(2, 'attention-calc benchmark'),
    ...msg(8, [str(1, ''), int(2, opset)]),
    ...graph,
  ]);
}

/** The ONNX Attention operator (opset 23) on [1, 1, n, d] inputs. */
export function attentionOpModel(n, d, causal) {
  const shape = [1, 1, n, d];
  return model(
    [node('Attention', ['Q', 'K', 'V'], ['Y'], { is_causal: { i: causal ? 1 : 0 }, scale: { f: 1 / Math.sqrt(d) } })],
    ['Q', 'K', 'V'].map((name) => valueInfo(11, name, shape)),
    [valueInfo(12, 'Y', shape)],
    23,
  );
}

/** The same computation as MatMul(Q, Kᵀ) · scale → Softmax → MatMul(·, V), on [n, d] inputs. */
export function matmulSoftmaxModel(n, d) {
  return model(
    [
      node('Transpose', ['K'], ['Kt']),
      node('MatMul', ['Q', 'Kt'], ['S']),
      node('Mul', ['S', 'scale'], ['Ss']),
      node('Softmax', ['Ss'], ['A'], { axis: { i: -1 } }),
      node('MatMul', ['A', 'V'], ['Y']),
    ],
    [valueInfo(11, 'Q', [n, d]), valueInfo(11, 'K', [n, d]), valueInfo(11, 'V', [n, d]), valueInfo(11, 'scale', [1])],
    [valueInfo(12, 'Y', [n, d])],
    17,
  );
}
