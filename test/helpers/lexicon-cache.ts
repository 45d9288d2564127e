import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * One lexicon cache for every test service of every run on this machine: parsing the FreeDict
 * dictionaries takes 20 s or more, reading the cache well under a second. It lives outside the
 * repository (the tables are derived from GPL data).
 */
export const TEST_LEXICON_CACHE_DIR = join(tmpdir(), "memory-service-test-lexicon-cache");
