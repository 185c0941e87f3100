-- rank() over two keys, one descending with NULLs first
SELECT id, rank() OVER (ORDER BY b DESC NULLS FIRST, g ASC NULLS LAST) AS r FROM t
