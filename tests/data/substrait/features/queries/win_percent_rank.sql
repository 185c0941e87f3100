-- percent_rank() over a key with ties
SELECT id, k, percent_rank() OVER (ORDER BY k NULLS FIRST) AS pr FROM t
