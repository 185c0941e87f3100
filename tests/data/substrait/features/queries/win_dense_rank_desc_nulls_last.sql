-- dense_rank() descending with NULLs last
SELECT id, k, dense_rank() OVER (ORDER BY k DESC NULLS LAST) AS r FROM t
