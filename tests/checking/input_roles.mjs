// What each operator reads from its inputs' *content*, for the shape-checking mutants: an input
// whose values the op reads as parameters (a shape, axes, sizes, a scalar setting, an encoded image)
// stays fixed at the test's data; an index input may change shape but its values must stay valid
// indices; every other input is data, whose shape may change freely.
//
// From the inputs sections of ../shared/onnx-spec/Operators.md and Operators-ml.md. Positions are
// 0-based input indices. Rank-0 inputs (scalars) are parameters whatever the op (mutants.mjs).

/** { opType: [positions] }: inputs read as parameters (kept at the test's data). */
export const PARAMETER_INPUTS = Object.freeze({
  Adagrad: [0, 1], // R (learning rate), T (step)
  Adam: [0, 1],
  AffineGrid: [1], // size
  BlackmanWindow: [0],
  CenterCropPad: [1], // shape
  Clip: [1, 2],
  Col2Im: [1, 2], // image_shape, block_shape
  ConstantOfShape: [0],
  CumProd: [1],
  CumSum: [1],
  DFT: [1, 2], // dft_length, axis
  Dropout: [1, 2], // ratio, training_mode
  Expand: [1],
  HammingWindow: [0],
  HannWindow: [0],
  If: [0],
  ImageDecoder: [0], // the encoded bytes must stay a valid image
  Loop: [0, 1], // M, cond
  MaxUnpool: [2], // output_shape
  MelWeightMatrix: [0, 1, 2, 3, 4],
  Momentum: [0, 1],
  NonMaxSuppression: [2, 3, 4], // max_output_boxes_per_class, iou_threshold, score_threshold
  OneHot: [1, 2], // depth, values
  Pad: [1, 2, 3], // pads, constant_value, axes
  Range: [0, 1, 2],
  ReduceL1: [1],
  ReduceL2: [1],
  ReduceLogSum: [1],
  ReduceLogSumExp: [1],
  ReduceMax: [1],
  ReduceMean: [1],
  ReduceMin: [1],
  ReduceProd: [1],
  ReduceSum: [1],
  ReduceSumSquare: [1],
  Reshape: [1],
  Resize: [1, 2, 3], // roi, scales, sizes
  STFT: [1, 3], // frame_step, frame_length
  SequenceAt: [1],
  SequenceErase: [1],
  SequenceInsert: [2],
  Slice: [1, 2, 3, 4],
  Split: [1],
  SplitToSequence: [1],
  Squeeze: [1],
  Tile: [1],
  TopK: [1],
  Trilu: [1],
  Unsqueeze: [1],
  Upsample: [1],
});

/**
 * { opType: { position: { lo, ref, axis, inclusive } } }: index inputs. Their values are drawn from
 * [lo, hi) (or [lo, hi] when inclusive) where hi is dim `axis` of input `ref` in the test's
 * original shapes, or the smallest dim of that input when axis is 'min' (valid whichever axis the
 * attributes pick); with ref null, hi is given. A mutant that shrinks the referenced input keeps
 * the test's own indices, which may then fall out of range (onnxruntime's refusal is about the
 * content, which onnx-shapes does not see).
 */
export const INDEX_INPUTS = Object.freeze({
  ArrayFeatureExtractor: { 1: { lo: 0, ref: 0, axis: -1 } },
  Attention: { 6: { lo: 0, ref: 1, axis: 'min', inclusive: true } }, // nonpad_kv_seqlen ≤ kv length
  GRU: { 4: { lo: 1, ref: 0, axis: 0, inclusive: true } }, // sequence_lens ≤ seq_length
  Gather: { 1: { lo: 0, ref: 0, axis: 'min' } },
  GatherElements: { 1: { lo: 0, ref: 0, axis: 'min' } },
  GatherND: { 1: { lo: 0, ref: 0, axis: 'min' } },
  LSTM: { 4: { lo: 1, ref: 0, axis: 0, inclusive: true } },
  MaxUnpool: { 1: { lo: 0, ref: 0, axis: 'min' } }, // flat indices into the (larger) output
  NegativeLogLikelihoodLoss: { 1: { lo: 0, ref: 0, axis: 1 } }, // class indices < C
  OneHot: { 0: { lo: 0, ref: null, hi: 2 } }, // any index is valid (outside [-depth, depth): zeros)
  RNN: { 4: { lo: 1, ref: 0, axis: 0, inclusive: true } },
  ReverseSequence: { 1: { lo: 1, ref: 0, axis: 'min', inclusive: true } }, // lengths ≤ time dim
  RoiAlign: { 2: { lo: 0, ref: 0, axis: 0 } }, // batch_indices < N
  RotaryEmbedding: { 3: { lo: 0, ref: 1, axis: 0 } }, // position_ids < max_position_id_plus_1
  Scatter: { 1: { lo: 0, ref: 0, axis: 'min' } },
  ScatterElements: { 1: { lo: 0, ref: 0, axis: 'min' } },
  ScatterND: { 1: { lo: 0, ref: 0, axis: 'min' } },
  SoftmaxCrossEntropyLoss: { 1: { lo: 0, ref: 0, axis: 1 } },
  TensorScatter: { 2: { lo: 0, ref: null, hi: 1 } }, // write_indices: 0 fits every update length
});

/** 'parameter', { index spec } or 'data' for input `position` of `opType`. */
export function inputRole(opType, position) {
  if ((PARAMETER_INPUTS[opType] ?? []).includes(position)) return 'parameter';
  const index = INDEX_INPUTS[opType]?.[position];
  return index ? { index } : 'data';
}
