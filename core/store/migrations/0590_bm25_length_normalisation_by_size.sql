-- BM25's b shrinks as a tenant grows past 5,000 chunks (ADR 0590): the SQL scorer's term-frequency
-- part with b given by the caller (core/recall/bm25/bm25-parameters.ts, lengthNormalisationB), so it
-- scores as the in-process index does at every size. k1 stays 1.2. The three-argument form (b = 0.3,
-- migration 0330) stays for anything that still calls it.
CREATE FUNCTION bm25_tf_part(tf integer, doc_len integer, avgdl double precision, b double precision)
  RETURNS double precision
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN 2.2 * tf / (tf + 1.2 * (1 - b + b * doc_len / avgdl));
