-- BM25's length normalisation b from 0.75 to 0.3 (ADR 0440), k1 stays 1.2: the SQL scorer's
-- term-frequency part, as core/recall/bm25/bm25-parameters.ts computes it for the in-process index.
-- Nothing stored depends on b (postings keep tf and document length; scores are computed at query
-- time), so no data changes.
CREATE OR REPLACE FUNCTION bm25_tf_part(tf integer, doc_len integer, avgdl double precision) RETURNS double precision
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN 2.2 * tf / (tf + 1.2 * (0.7 + 0.3 * doc_len / avgdl));
