-- ordered: ORDER BY a key with NULLS FIRST and a tie-breaker
SELECT id, k FROM t ORDER BY k ASC NULLS FIRST, id
