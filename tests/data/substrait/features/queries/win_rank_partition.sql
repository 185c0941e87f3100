-- rank() within partitions (NULL partition key is one partition)
SELECT id, g, k, rank() OVER (PARTITION BY g ORDER BY k NULLS FIRST) AS r FROM t
