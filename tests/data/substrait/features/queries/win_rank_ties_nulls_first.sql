-- rank() over a key with ties and NULLs sorted first
SELECT id, k, rank() OVER (ORDER BY k NULLS FIRST) AS r FROM t
