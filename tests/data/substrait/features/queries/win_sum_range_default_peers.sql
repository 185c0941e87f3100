-- sum with the default frame (RANGE ..CURRENT ROW): ties are peers
SELECT id, k, sum(ii) OVER (ORDER BY k NULLS FIRST) AS rs FROM t
