/** Snowball stems now live with the other language knowledge in core/models/lexicon/stem-word.ts. */
export { stemWord } from "../lexicon/stem-word.js";
