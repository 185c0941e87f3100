-- ordered: ORDER BY three keys of mixed directions
SELECT id, g, b FROM t ORDER BY g DESC NULLS FIRST, b ASC NULLS LAST, id
