#!/usr/bin/env node
/**
 * Writes tiny CLIP, CLAP and Whisper models in the transformers.js layout, with random weights, so the
 * downloadable providers' real loading and inference code can run in tests without the network:
 *
 *   <dir>/<id>/config.json, tokenizer.json, tokenizer_config.json, preprocessor_config.json,
 *             generation_config.json (Whisper), onnx/*.onnx
 *
 * The ONNX graphs are written as protobuf from Node (protobufjs, already installed under
 * @grpc/proto-loader): PyPI is unreachable here and nothing else is needed. They keep the input
 * and output names and shapes transformers.js expects, with a few small layers inside:
 *   - CLIP text:   input_ids, attention_mask → text_embeds  (embedding, masked mean, projection)
 *   - CLIP vision: pixel_values [b,3,32,32] → image_embeds  (8×8 pooling, two projections)
 *   - CLAP text:   input_ids, attention_mask → text_embeds  (as CLIP's)
 *   - CLAP audio:  input_features [b,1,frames,64] (the log-mel spectrogram of the model's own
 *     ClapFeatureExtractor, 48 kHz) → audio_embeds  (mean over time, two projections); a 1 s window
 *     instead of the released 10 s, so a test's few seconds of audio span several windows
 *   - Whisper encoder: input_features [b,80,3000] → last_hidden_state [b,1500,d]
 *   - Whisper decoder: input_ids, encoder_hidden_states → logits. Its logits depend on the last
 *     token only (a bigram table): random values plus one planted path, so generation gives a
 *     known transcript with timestamps ("<|0.00|> hello world<|1.00|>") and stops.
 *
 * Usage: node scripts/models/make-tiny-models.js <dir>   (prints the model ids it wrote)
 * From tests: require('scripts/models/make-tiny-models.js').makeTinyModels(dir)
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const protobuf = require('protobufjs');
// The benchmarks' seeded generator (mulberry32): every run writes the same weights.
const { seededRandom } = require('../bench/lib');

// The subset of onnx.proto (field numbers as upstream) needed to write a model.
const ONNX_PROTO = `
syntax = "proto2";
package onnx;
message AttributeProto {
  enum AttributeType { UNDEFINED = 0; FLOAT = 1; INT = 2; STRING = 3; TENSOR = 4; GRAPH = 5; FLOATS = 6; INTS = 7; STRINGS = 8; }
  optional string name = 1;
  optional float f = 2;
  optional int64 i = 3;
  optional bytes s = 4;
  optional TensorProto t = 5;
  repeated float floats = 7;
  repeated int64 ints = 8;
  optional AttributeType type = 20;
}
message ValueInfoProto { optional string name = 1; optional TypeProto type = 2; }
message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  optional string name = 3;
  optional string op_type = 4;
  repeated AttributeProto attribute = 5;
  optional string domain = 7;
}
message ModelProto {
  optional int64 ir_version = 1;
  optional string producer_name = 2;
  optional GraphProto graph = 7;
  repeated OperatorSetIdProto opset_import = 8;
}
message GraphProto {
  repeated NodeProto node = 1;
  optional string name = 2;
  repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
}
message TensorProto {
  repeated int64 dims = 1;
  optional int32 data_type = 2;
  optional string name = 8;
  optional bytes raw_data = 9;
}
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { optional int32 elem_type = 1; optional TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
}
message OperatorSetIdProto { optional string domain = 1; optional int64 version = 2; }
`;

const FLOAT = 1;
const INT64 = 7;
const ModelProto = protobuf.parse(ONNX_PROTO).root.lookupType('onnx.ModelProto');

function randomFloats(count, rand, scale = 0.5) {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (rand() * 2 - 1) * scale;
  return out;
}

function floatTensor(name, dims, values) {
  const data = values instanceof Float32Array ? values : Float32Array.from(values);
  return { name, dims, dataType: FLOAT, rawData: Buffer.from(data.buffer, data.byteOffset, data.byteLength) };
}

function int64Tensor(name, dims, values) {
  const data = BigInt64Array.from(values.map((v) => BigInt(v)));
  return { name, dims, dataType: INT64, rawData: Buffer.from(data.buffer) };
}

function valueInfo(name, elemType, dims) {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function node(opType, inputs, outputs, attributes = {}) {
  const attribute = Object.entries(attributes).map(([name, value]) => {
    if (Array.isArray(value)) return { name, type: 7, ints: value };
    if (Number.isInteger(value)) return { name, type: 2, i: value };
    return { name, type: 1, f: value };
  });
  return { opType, input: inputs, output: outputs, name: `${opType}_${outputs[0]}`, attribute };
}

function writeModel(file, { nodes, initializers, inputs, outputs }) {
  const model = ModelProto.create({
    irVersion: 8,
    producerName: 'vus make-tiny-models',
    opsetImport: [{ domain: '', version: 17 }],
    graph: { name: path.basename(file, '.onnx'), node: nodes, initializer: initializers, input: inputs, output: outputs },
  });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, ModelProto.encode(model).finish());
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** GPT-2's byte → printable character table, which byte-level BPE vocabularies are written in. */
function bytesToUnicode() {
  const bytes = [];
  for (let b = 33; b <= 126; b++) bytes.push(b);
  for (let b = 161; b <= 172; b++) bytes.push(b);
  for (let b = 174; b <= 255; b++) bytes.push(b);
  const chars = [...bytes];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bytes.includes(b)) {
      bytes.push(b);
      chars.push(256 + n++);
    }
  }
  return bytes
    .map((b, i) => [b, String.fromCodePoint(chars[i])])
    .sort((x, y) => x[0] - y[0])
    .map(([, c]) => c);
}

/**
 * A dual encoder's text tower (CLIP's, CLAP's): input_ids, attention_mask → text_embeds, as an
 * embedding, a masked mean, tanh and a projection.
 */
function writeTextModel(file, { vocabSize, hidden, projection, rand }) {
  writeModel(file, {
    inputs: [valueInfo('input_ids', INT64, ['batch', 'sequence']), valueInfo('attention_mask', INT64, ['batch', 'sequence'])],
    outputs: [valueInfo('text_embeds', FLOAT, ['batch', projection])],
    initializers: [
      floatTensor('embedding', [vocabSize, hidden], randomFloats(vocabSize * hidden, rand)),
      floatTensor('text_projection', [hidden, projection], randomFloats(hidden * projection, rand)),
      int64Tensor('axis_sequence', [1], [1]),
      int64Tensor('axis_last', [1], [2]),
    ],
    nodes: [
      node('Gather', ['embedding', 'input_ids'], ['embedded'], { axis: 0 }),
      node('Cast', ['attention_mask'], ['mask'], { to: FLOAT }),
      node('Unsqueeze', ['mask', 'axis_last'], ['mask3']),
      node('Mul', ['embedded', 'mask3'], ['masked']),
      node('ReduceSum', ['masked', 'axis_sequence'], ['summed'], { keepdims: 0 }),
      node('ReduceSum', ['mask3', 'axis_sequence'], ['count'], { keepdims: 0 }),
      node('Div', ['summed', 'count'], ['pooled']),
      node('Tanh', ['pooled'], ['activated']),
      node('MatMul', ['activated', 'text_projection'], ['text_embeds']),
    ],
  });
}

// ---------------------------------------------------------------------------------------------
// CLIP

const CLIP = { id: 'tiny/clip', hidden: 16, projection: 8, image: 32 };

/** CLIP's tokenizer shape (lower-casing, byte-level BPE with `</w>` word ends) over single-byte tokens. */
function clipTokenizer() {
  const vocab = {};
  for (const c of bytesToUnicode()) vocab[c] = Object.keys(vocab).length;
  for (const c of bytesToUnicode()) vocab[`${c}</w>`] = Object.keys(vocab).length;
  const bos = Object.keys(vocab).length;
  vocab['<|startoftext|>'] = bos;
  vocab['<|endoftext|>'] = bos + 1;
  const special = (id, content) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: true, special: true });
  return {
    vocabSize: bos + 2,
    json: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [special(bos, '<|startoftext|>'), special(bos + 1, '<|endoftext|>')],
      normalizer: {
        type: 'Sequence',
        normalizers: [{ type: 'NFC' }, { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' }, { type: 'Lowercase' }],
      },
      pre_tokenizer: {
        type: 'Sequence',
        pretokenizers: [
          {
            type: 'Split',
            pattern: { Regex: "'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+" },
            behavior: 'Removed',
            invert: true,
          },
          { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
        ],
      },
      post_processor: {
        type: 'RobertaProcessing',
        sep: ['<|endoftext|>', bos + 1],
        cls: ['<|startoftext|>', bos],
        trim_offsets: false,
        add_prefix_space: false,
      },
      decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: '<|endoftext|>',
        continuing_subword_prefix: '',
        end_of_word_suffix: '</w>',
        fuse_unk: false,
        byte_fallback: false,
        vocab,
        merges: [],
      },
    },
  };
}

/** Writes clipTokenizer's tokenizer.json and tokenizer_config.json into `dir`; returns the vocabulary size. */
function writeClipTokenizer(dir) {
  const { vocabSize, json } = clipTokenizer();
  writeJson(path.join(dir, 'tokenizer.json'), json);
  writeJson(path.join(dir, 'tokenizer_config.json'), {
    tokenizer_class: 'CLIPTokenizer',
    bos_token: '<|startoftext|>',
    eos_token: '<|endoftext|>',
    unk_token: '<|endoftext|>',
    pad_token: '<|endoftext|>',
    model_max_length: 77,
    do_lower_case: true,
  });
  return vocabSize;
}

function writeClip(root) {
  const dir = path.join(root, CLIP.id);
  const rand = seededRandom(42);
  const vocabSize = writeClipTokenizer(dir);
  const { hidden, projection, image } = CLIP;
  writeJson(path.join(dir, 'preprocessor_config.json'), {
    image_processor_type: 'CLIPImageProcessor',
    feature_extractor_type: 'CLIPFeatureExtractor',
    do_resize: true,
    size: { shortest_edge: image },
    resample: 3,
    do_center_crop: true,
    crop_size: { height: image, width: image },
    do_rescale: true,
    rescale_factor: 1 / 255,
    do_normalize: true,
    image_mean: [0.48145466, 0.4578275, 0.40821073],
    image_std: [0.26862954, 0.26130258, 0.27577711],
    do_convert_rgb: true,
  });
  writeJson(path.join(dir, 'config.json'), {
    model_type: 'clip',
    architectures: ['CLIPModel'],
    projection_dim: projection,
    text_config: {
      model_type: 'clip_text_model',
      hidden_size: hidden,
      vocab_size: vocabSize,
      max_position_embeddings: 77,
      projection_dim: projection,
    },
    vision_config: { model_type: 'clip_vision_model', hidden_size: hidden, image_size: image, patch_size: 8, projection_dim: projection },
    'transformers.js_config': { dtype: 'fp32' },
  });

  writeTextModel(path.join(dir, 'onnx', 'text_model.onnx'), { vocabSize, hidden, projection, rand });

  const cells = 3 * (image / 8) * (image / 8);
  writeModel(path.join(dir, 'onnx', 'vision_model.onnx'), {
    inputs: [valueInfo('pixel_values', FLOAT, ['batch', 3, image, image])],
    outputs: [valueInfo('image_embeds', FLOAT, ['batch', projection])],
    initializers: [
      floatTensor('patch_weights', [cells, hidden], randomFloats(cells * hidden, rand)),
      floatTensor('visual_projection', [hidden, projection], randomFloats(hidden * projection, rand)),
    ],
    nodes: [
      node('AveragePool', ['pixel_values'], ['pooled'], { kernel_shape: [8, 8], strides: [8, 8] }),
      node('Flatten', ['pooled'], ['flat'], { axis: 1 }),
      node('MatMul', ['flat', 'patch_weights'], ['hidden']),
      node('Tanh', ['hidden'], ['activated']),
      node('MatMul', ['activated', 'visual_projection'], ['image_embeds']),
    ],
  });
  return CLIP.id;
}

// ---------------------------------------------------------------------------------------------
// CLAP (the released checkpoints' preprocessing: 64 mel bins, 48 kHz, hop 480, FFT 1024)

const CLAP = { id: 'tiny/clap', hidden: 16, projection: 8, mels: 64, sampleRate: 48000, windowSeconds: 1 };

function writeClap(root) {
  const dir = path.join(root, CLAP.id);
  const rand = seededRandom(7);
  // CLIP's tokenizer: a tiny model need not carry RoBERTa's (the released CLAP's); the text tower takes the same inputs.
  const vocabSize = writeClipTokenizer(dir);
  const { hidden, projection, mels, sampleRate, windowSeconds } = CLAP;
  writeJson(path.join(dir, 'preprocessor_config.json'), {
    feature_extractor_type: 'ClapFeatureExtractor',
    feature_size: mels,
    sampling_rate: sampleRate,
    hop_length: 480,
    fft_window_size: 1024,
    nb_frequency_bins: 513,
    frequency_min: 50,
    frequency_max: 14000,
    max_length_s: windowSeconds,
    nb_max_samples: sampleRate * windowSeconds,
    padding: 'repeatpad',
    truncation: 'rand_trunc',
    padding_side: 'right',
    padding_value: 0,
    return_attention_mask: false,
  });
  writeJson(path.join(dir, 'config.json'), {
    model_type: 'clap',
    architectures: ['ClapModel'],
    projection_dim: projection,
    text_config: { model_type: 'clap_text_model', hidden_size: hidden, vocab_size: vocabSize, projection_dim: projection },
    audio_config: { model_type: 'clap_audio_model', num_mel_bins: mels, projection_dim: projection },
    'transformers.js_config': { dtype: 'fp32' },
  });

  writeTextModel(path.join(dir, 'onnx', 'text_model.onnx'), { vocabSize, hidden, projection, rand });

  writeModel(path.join(dir, 'onnx', 'audio_model.onnx'), {
    inputs: [valueInfo('input_features', FLOAT, ['batch', 1, 'frames', mels])],
    outputs: [valueInfo('audio_embeds', FLOAT, ['batch', projection])],
    initializers: [
      floatTensor('mel_weights', [mels, hidden], randomFloats(mels * hidden, rand, 0.05)),
      floatTensor('audio_projection', [hidden, projection], randomFloats(hidden * projection, rand)),
    ],
    nodes: [
      // [b,1,frames,mels] → [b,mels]: the mean spectrum (dB values, hence the small weights).
      node('ReduceMean', ['input_features'], ['spectrum'], { axes: [1, 2], keepdims: 0 }),
      node('MatMul', ['spectrum', 'mel_weights'], ['hidden']),
      node('Tanh', ['hidden'], ['activated']),
      node('MatMul', ['activated', 'audio_projection'], ['audio_embeds']),
    ],
  });
  return CLAP.id;
}

// ---------------------------------------------------------------------------------------------
// Whisper (English-only layout: no language or task tokens)

const WHISPER = {
  id: 'tiny/whisper',
  hidden: 8,
  /** The transcript generation produces, and the time its one segment ends. */
  phrase: ' blacksmith',
  end: '<|1.00|>',
  /** Timestamp tokens <|0.00|> … <|1.00|>: enough for the planted path, and the table stays small. */
  timestamps: 51,
};

function writeWhisper(root) {
  const dir = path.join(root, WHISPER.id);
  const rand = seededRandom(7);
  const byteChars = bytesToUnicode();
  const vocab = {};
  for (const c of byteChars) vocab[c] = Object.keys(vocab).length;
  const specials = [
    '<|endoftext|>',
    '<|startoftranscript|>',
    '<|translate|>',
    '<|transcribe|>',
    '<|startoflm|>',
    '<|startofprev|>',
    '<|nocaptions|>',
    '<|notimestamps|>',
  ];
  const added = [];
  for (const content of specials) {
    vocab[content] = Object.keys(vocab).length;
    added.push({ id: vocab[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  }
  for (let i = 0; i < WHISPER.timestamps; i++) {
    const content = `<|${(i * 0.02).toFixed(2)}|>`;
    vocab[content] = Object.keys(vocab).length;
    added.push({ id: vocab[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: false });
  }
  const vocabSize = Object.keys(vocab).length;
  const id = (token) => {
    if (!(token in vocab)) throw new Error(`no token ${token}`);
    return vocab[token];
  };
  const eot = id('<|endoftext|>');
  const sot = id('<|startoftranscript|>');

  writeJson(path.join(dir, 'tokenizer.json'), {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: [],
    },
  });
  writeJson(path.join(dir, 'tokenizer_config.json'), {
    tokenizer_class: 'WhisperTokenizer',
    bos_token: '<|endoftext|>',
    eos_token: '<|endoftext|>',
    unk_token: '<|endoftext|>',
    pad_token: '<|endoftext|>',
    model_max_length: 448,
  });
  writeJson(path.join(dir, 'preprocessor_config.json'), {
    feature_extractor_type: 'WhisperFeatureExtractor',
    processor_class: 'WhisperProcessor',
    feature_size: 80,
    sampling_rate: 16000,
    hop_length: 160,
    chunk_length: 30,
    n_fft: 400,
    n_samples: 480000,
    nb_max_frames: 3000,
    padding_side: 'right',
    padding_value: 0.0,
    return_attention_mask: false,
  });
  const ids = { decoder_start_token_id: sot, eos_token_id: eot, pad_token_id: eot, bos_token_id: eot };
  writeJson(path.join(dir, 'config.json'), {
    model_type: 'whisper',
    architectures: ['WhisperForConditionalGeneration'],
    is_encoder_decoder: true,
    d_model: WHISPER.hidden,
    encoder_layers: 1,
    decoder_layers: 1,
    encoder_attention_heads: 1,
    decoder_attention_heads: 1,
    num_mel_bins: 80,
    max_source_positions: 1500,
    max_target_positions: 448,
    vocab_size: vocabSize,
    use_cache: false,
    ...ids,
    'transformers.js_config': { dtype: 'fp32' },
  });
  writeJson(path.join(dir, 'generation_config.json'), {
    ...ids,
    no_timestamps_token_id: id('<|notimestamps|>'),
    is_multilingual: false,
    max_initial_timestamp_index: 50,
    max_length: 448,
    begin_suppress_tokens: [],
    suppress_tokens: [],
  });

  // Encoder: mel frames → hidden states, pairs of frames averaged (3000 → 1500 positions).
  const d = WHISPER.hidden;
  writeModel(path.join(dir, 'onnx', 'encoder_model.onnx'), {
    inputs: [valueInfo('input_features', FLOAT, ['batch', 80, 3000])],
    outputs: [valueInfo('last_hidden_state', FLOAT, ['batch', 1500, d])],
    initializers: [
      floatTensor('frame_weights', [80, d], randomFloats(80 * d, rand)),
      int64Tensor('pairs_shape', [4], [0, 1500, 2, d]),
      int64Tensor('pair_axis', [1], [2]),
    ],
    nodes: [
      node('Transpose', ['input_features'], ['frames'], { perm: [0, 2, 1] }),
      node('MatMul', ['frames', 'frame_weights'], ['projected']),
      node('Reshape', ['projected', 'pairs_shape'], ['pairs']),
      node('ReduceMean', ['pairs'], ['last_hidden_state'], { axes: [2], keepdims: 0 }),
    ],
  });

  // Decoder: next-token logits from the last token alone (a bigram table), random everywhere
  // except the planted path sot → <|0.00|> → phrase → end timestamp → eot. The encoder's states
  // enter through a zero weight so the graph has the inputs transformers.js feeds.
  const table = randomFloats(vocabSize * vocabSize, rand, 1);
  const phraseTokens = [...Buffer.from(WHISPER.phrase, 'utf8')].map((b) => id(byteChars[b]));
  const path_ = [sot, id('<|0.00|>'), ...phraseTokens, id(WHISPER.end), eot];
  for (let i = 0; i + 1 < path_.length; i++) table[path_[i] * vocabSize + path_[i + 1]] = 20;
  if (new Set(path_.slice(0, -1)).size !== path_.length - 1) throw new Error('the planted path must not repeat a token');
  writeModel(path.join(dir, 'onnx', 'decoder_model_merged.onnx'), {
    inputs: [
      valueInfo('input_ids', INT64, ['batch', 'sequence']),
      valueInfo('encoder_hidden_states', FLOAT, ['batch', 'encoder_sequence', d]),
    ],
    outputs: [valueInfo('logits', FLOAT, ['batch', 'sequence', vocabSize])],
    initializers: [floatTensor('bigram', [vocabSize, vocabSize], table), floatTensor('zero', [1], [0])],
    nodes: [
      node('Gather', ['bigram', 'input_ids'], ['next'], { axis: 0 }),
      node('ReduceMean', ['encoder_hidden_states'], ['context'], { axes: [1, 2], keepdims: 1 }),
      node('Mul', ['context', 'zero'], ['silent']),
      node('Add', ['next', 'silent'], ['logits']),
    ],
  });
  return WHISPER.id;
}

// ---------------------------------------------------------------------------------------------

/** Writes every tiny model under `dir`; returns their ids (folder names relative to `dir`). */
function makeTinyModels(dir) {
  return { clip: writeClip(dir), whisper: writeWhisper(dir), clap: writeClap(dir) };
}

module.exports = { makeTinyModels, CLIP, CLAP, WHISPER };

if (require.main === module) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/models/make-tiny-models.js <dir>');
    process.exit(2);
  }
  console.log(JSON.stringify(makeTinyModels(path.resolve(dir))));
}
