/**
 * The Universal Sentence Encoder lite's shape, shared by the graph writer and the encoder: the token
 * positions it was trained with (longer input is cut, as the TensorFlow graph does) and its output
 * width. A module of its own so the encoder need not load the graph writer (protobufjs) to know them.
 */
export const USE_LITE_MAX_TOKENS = 128;
export const USE_LITE_DIMENSIONS = 512;
