-- ordered: ORDER BY DESC NULLS LAST and a tie-breaker
SELECT id, k FROM t ORDER BY k DESC NULLS LAST, id DESC
